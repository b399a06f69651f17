import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Artifacts } from './artifacts.js';

const saved = process.env.TMPDIR;
afterEach(() => {
  if (saved === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = saved;
});

describe('Artifacts without a folder, for an upload', () => {
  it('keeps the log in a temporary file, removed by dispose', async () => {
    const artifacts = new Artifacts(undefined, { keepLog: true });
    try {
      artifacts.appendLog('line 1');
      artifacts.appendLog('line 2');
      await artifacts.closeLog();
      const file = artifacts.logFile ?? '';
      expect(readFileSync(file, 'utf8')).toBe('line 1\nline 2\n');
      expect(artifacts.path('log')).toBeUndefined();
      artifacts.dispose();
      expect(existsSync(file)).toBe(false);
    } finally {
      artifacts.dispose();
    }
  });

  it('keeps it in memory where no temporary folder can be made', () => {
    process.env.TMPDIR = '/proc/no-such-folder';
    const artifacts = new Artifacts(undefined, { keepLog: true });
    artifacts.appendLog('line 1');
    expect(artifacts.logFile).toBeUndefined();
    expect(artifacts.logText).toBe('line 1\n');
  });

  it('keeps nothing without an upload', () => {
    const artifacts = new Artifacts(undefined);
    artifacts.appendLog('line 1');
    expect(artifacts.logFile).toBeUndefined();
    expect(artifacts.logText).toBeUndefined();
  });
});
