import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseCriLog, recordStream, renderLog } from './cri-log.js';

describe('container logs in the CRI format', () => {
  it('records lines as printed and reads them back as kubectl logs shows them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kfx-cri-log-'));
    try {
      const file = join(dir, 'c.log');
      const stream = new PassThrough();
      const done = recordStream(stream, 'stdout', file);
      stream.write('one\ntw');
      stream.write('o\nno newline');
      stream.end();
      await done;
      const entries = parseCriLog(readFileSync(file, 'utf8'));
      expect(entries.map((e) => e.stream)).toEqual(['stdout', 'stdout', 'stdout']);
      expect(renderLog(entries)).toBe('one\ntwo\nno newline');
      expect(renderLog(entries, { tailLines: 1 })).toBe('no newline');
      expect(renderLog(entries, { tailLines: 0 })).toBe('');
      const stamped = renderLog(entries, { timestamps: true }).split('\n')[0] ?? '';
      expect(stamped).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z one$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves out a line still being written', () => {
    expect(parseCriLog('2024-01-01T00:00:00.000000000Z stderr F done\n2024-01-01T00:00:0')).toEqual(
      [{ time: '2024-01-01T00:00:00.000000000Z', stream: 'stderr', text: 'done\n' }],
    );
  });
});
