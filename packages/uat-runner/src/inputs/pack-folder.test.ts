import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatBytes, packFolder } from './pack-folder.js';

const dirs: string[] = [];
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'kfx-pack-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('packFolder', () => {
  it('packs what tar unpacks: files, modes, folders, links; caches left out', () => {
    const folder = temp();
    const long = `${'deep/'.repeat(25)}test_long.py`; // over the 100 bytes of a ustar name
    mkdirSync(join(folder, 'tests', 'data'), { recursive: true });
    mkdirSync(join(folder, long, '..'), { recursive: true });
    mkdirSync(join(folder, '.git'));
    mkdirSync(join(folder, 'tests', '__pycache__'));
    writeFileSync(join(folder, 'tests', 'test_kfp.py'), 'def test_kfp():\n    pass\n');
    writeFileSync(join(folder, 'run.sh'), '#!/bin/sh\npytest\n', { mode: 0o755 });
    writeFileSync(join(folder, long), 'x = 1\n');
    writeFileSync(join(folder, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(folder, 'tests', '__pycache__', 'a.pyc'), 'junk');
    symlinkSync('tests/test_kfp.py', join(folder, 'link.py'));

    const packed = packFolder(folder);
    expect(packed.files).toBe(3);
    const out = temp();
    writeFileSync(join(out, 'suite.tar.gz'), packed.archive);
    mkdirSync(join(out, 'x'));
    execFileSync('tar', ['-xzf', join(out, 'suite.tar.gz'), '-C', join(out, 'x')]);
    const x = (path: string) => join(out, 'x', path);
    expect(readFileSync(x('tests/test_kfp.py'), 'utf8')).toContain('def test_kfp');
    expect(statSync(x('run.sh')).mode & 0o777).toBe(0o755);
    expect(readFileSync(x(long), 'utf8')).toBe('x = 1\n');
    expect(readFileSync(x('link.py'), 'utf8')).toContain('def test_kfp');
    expect(() => statSync(x('.git'))).toThrow();
    expect(() => statSync(x('tests/__pycache__'))).toThrow();
  });

  it('names the folder and the limit when it is too large', () => {
    const folder = temp();
    writeFileSync(join(folder, 'data.bin'), randomBytes(1_200_000)); // does not compress
    expect(() => packFolder(folder, '--suite-dir')).toThrow(
      `--suite-dir: ${folder} is too large for the Secret that carries it into the cluster (1.1 MiB packed; a Secret holds at most 1 MiB as tar.gz)`,
    );
  });

  it('refuses what is not a folder', () => {
    const folder = temp();
    writeFileSync(join(folder, 'f'), '');
    expect(() => packFolder(join(folder, 'nope'))).toThrow(
      `--suite-dir: ${folder}/nope does not exist`,
    );
    expect(() => packFolder(join(folder, 'f'))).toThrow('is not a folder');
  });

  it('formats sizes as the limit is stated', () => {
    expect([formatBytes(500), formatBytes(3482), formatBytes(1_258_291)]).toEqual([
      '500 B',
      '3.4 KiB',
      '1.2 MiB',
    ]);
  });
});
