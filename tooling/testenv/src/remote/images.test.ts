import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeImageArchive } from '../oci-archive.js';
import { imageStore, normalizeImageName } from './images.js';

const dir = mkdtempSync(join(tmpdir(), 'kfx-remote-images-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the remote node’s images', () => {
  it('resolves names as a container runtime does', () => {
    expect(normalizeImageName('busybox')).toBe('docker.io/library/busybox:latest');
    expect(normalizeImageName('kfx/cli:0.1.0')).toBe('docker.io/kfx/cli:0.1.0');
    expect(normalizeImageName('kfx.test/shell:1')).toBe('kfx.test/shell:1');
    expect(normalizeImageName('localhost:5000/x')).toBe('localhost:5000/x:latest');
    expect(normalizeImageName('x@sha256:ab')).toBe('docker.io/library/x@sha256:ab');
  });

  it('unpacks an OCI archive into a root filesystem and finds it by any of its names', async () => {
    const archive = join(dir, 'image.tar');
    writeImageArchive(archive, {
      name: 'localhost/kfx-test/hello:1',
      entries: [{ path: '/etc/greeting', content: 'hello\n' }],
      entrypoint: ['/bin/hello'],
      workingDir: '/srv',
    });
    const store = imageStore(join(dir, 'store'));
    expect(await store.load(archive)).toEqual([
      'localhost/kfx-test/hello:1',
      'docker.io/kfx-test/hello:1',
    ]);
    const image = store.find('kfx-test/hello:1');
    expect(image?.config).toMatchObject({ entrypoint: ['/bin/hello'], workingDir: '/srv' });
    expect(readFileSync(join(image?.rootfs ?? '', 'etc/greeting'), 'utf8')).toBe('hello\n');
    expect(store.find('kfx-test/other:1')).toBeUndefined();
    expect(existsSync(join(dir, 'store'))).toBe(true);
  });

  it('says which archive it cannot read', async () => {
    const store = imageStore(join(dir, 'store'));
    await expect(store.load(join(dir, 'missing.tar'))).rejects.toThrow(
      `cannot load ${join(dir, 'missing.tar')}`,
    );
  });
});
