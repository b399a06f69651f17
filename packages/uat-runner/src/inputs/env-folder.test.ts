import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readEnvFolder } from './env-folder.js';

const root = mkdtempSync(join(tmpdir(), 'kfx-env-folder-'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

/** A Secret as the kubelet mounts it: the files in a timestamped folder, linked through ..data. */
function mountedSecret(name: string, data: Record<string, string>): string {
  const dir = join(root, name);
  mkdirSync(join(dir, '..2026_11_27_21_00_00.1'), { recursive: true });
  for (const [key, value] of Object.entries(data)) {
    writeFileSync(join(dir, '..2026_11_27_21_00_00.1', key), value);
  }
  symlinkSync('..2026_11_27_21_00_00.1', join(dir, '..data'));
  for (const key of Object.keys(data)) symlinkSync(join('..data', key), join(dir, key));
  return dir;
}

describe('readEnvFolder', () => {
  it('reads a mounted Secret: a variable per key, the value as is', () => {
    const dir = mountedSecret('params', {
      KFP_HOST: 'http://ml-pipeline.kubeflow:8888',
      NO_PROXY: '.svc,.cluster.local',
      MULTI: 'a\nb\n',
    });
    expect(readEnvFolder(dir)).toEqual({
      KFP_HOST: 'http://ml-pipeline.kubeflow:8888',
      MULTI: 'a\nb\n',
      NO_PROXY: '.svc,.cluster.local',
    });
  });

  it('is empty for an optional Secret that does not exist (an empty folder)', () => {
    const dir = join(root, 'empty');
    mkdirSync(dir);
    expect(readEnvFolder(dir)).toEqual({});
  });

  it('names a key that cannot be a variable', () => {
    const dir = mountedSecret('bad', { 'params.env': 'A=1\n', '1ST': 'x' });
    expect(() => readEnvFolder(dir)).toThrow(/"1ST" is not a valid variable name/);
  });
});
