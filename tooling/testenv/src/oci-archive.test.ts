import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeImageArchive } from './oci-archive.js';

const dir = mkdtempSync(join(tmpdir(), 'kfx-oci-test-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const untar = (archive: string, into: string) => {
  execFileSync('mkdir', ['-p', into]);
  execFileSync('tar', ['-xf', archive, '-C', into]);
};

describe('writeImageArchive', () => {
  it('writes an OCI image layout whose layer holds the files, with their modes and links', () => {
    const script = join(dir, 'run.sh');
    writeFileSync(script, '#!/bin/sh\necho hi\n', { mode: 0o755 });
    const deep = `${'d'.repeat(60)}/${'e'.repeat(60)}/file.txt`;
    const archive = join(dir, 'image.tar');
    writeImageArchive(archive, {
      name: 'kfx.test/sample:1',
      entries: [
        { path: '/bin/run.sh', type: 'copy', source: script },
        { path: '/bin/sh', type: 'symlink', target: 'busybox' },
        { path: '/etc/greeting', content: 'hello\n' },
        { path: '/tmp', type: 'dir', mode: 0o1777 },
        { path: `/${deep}`, content: 'deep' },
      ],
      entrypoint: ['/bin/run.sh'],
      user: '1000:1000',
    });
    const out = join(dir, 'out');
    untar(archive, out);
    const index = JSON.parse(readFileSync(join(out, 'index.json'), 'utf8')) as {
      manifests: { digest: string; annotations: Record<string, string> }[];
    };
    expect(index.manifests[0]?.annotations['io.containerd.image.name']).toBe('kfx.test/sample:1');
    const blob = (digest: string) => join(out, 'blobs', 'sha256', digest.replace('sha256:', ''));
    const manifest = JSON.parse(readFileSync(blob(index.manifests[0]?.digest ?? ''), 'utf8')) as {
      config: { digest: string };
      layers: { digest: string }[];
    };
    const config = JSON.parse(readFileSync(blob(manifest.config.digest), 'utf8')) as {
      config: { Entrypoint: string[]; User: string };
      rootfs: { diff_ids: string[] };
    };
    expect(config.config).toMatchObject({ Entrypoint: ['/bin/run.sh'], User: '1000:1000' });
    expect(config.rootfs.diff_ids).toEqual([manifest.layers[0]?.digest]);

    const rootfs = join(dir, 'rootfs');
    untar(blob(manifest.layers[0]?.digest ?? ''), rootfs);
    expect(readFileSync(join(rootfs, 'etc', 'greeting'), 'utf8')).toBe('hello\n');
    expect(readFileSync(join(rootfs, deep), 'utf8')).toBe('deep');
    const listing = execFileSync('tar', ['-tvf', blob(manifest.layers[0]?.digest ?? '')], {
      encoding: 'utf8',
    });
    expect(listing).toMatch(/^-rwxr-xr-x .* bin\/run\.sh$/m);
    expect(listing).toMatch(/^lrwxrwxrwx .* bin\/sh -> busybox$/m);
    expect(listing).toMatch(/^drwxrwxrwt .* tmp\/$/m);
  });

  it('refuses a path too long for a tar header', () => {
    expect(() => {
      writeImageArchive(join(dir, 'bad.tar'), {
        name: 'kfx.test/bad:1',
        entries: [{ path: `/${'x'.repeat(120)}`, content: '' }],
      });
    }).toThrow(/the path is too long for a tar header/);
  });
});
