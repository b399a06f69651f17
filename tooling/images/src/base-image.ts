// The base image every kfx app image starts FROM (`kfx/node24-base`), made locally because no
// registry is reachable: the Node 24 binary that runs this build (from the npm registry's `node`
// package), stripped, plus exactly the shared libraries `ldd` says it loads, an /etc/passwd with
// the non-root user 65532, and /tmp. No shell, no package manager.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { run } from './podman.js';

export const BASE_IMAGE = 'localhost/kfx/node24-base';
export const NONROOT_UID = 65532;

/** Shared libraries a binary loads, as absolute paths (the vdso has none). */
export function sharedLibraries(binary: string): string[] {
  const out = execFileSync('ldd', [binary], { encoding: 'utf8' });
  return [...out.matchAll(/(\/\S+) \(0x[0-9a-f]+\)/g)].map((m) => m[1] ?? '').filter(Boolean);
}

async function exists(image: string): Promise<boolean> {
  try {
    await run('podman', ['image', 'exists', image]);
    return true;
  } catch {
    return false;
  }
}

export interface BaseImageResult {
  image: string;
  nodeVersion: string;
  built: boolean;
}

/** Builds `kfx/node24-base:<node version>` (and `:latest`) unless it exists already. */
export async function ensureBaseImage(nodeBinary = process.execPath): Promise<BaseImageResult> {
  const nodeVersion = execFileSync(nodeBinary, ['--version'], { encoding: 'utf8' })
    .trim()
    .replace(/^v/, '');
  if (!nodeVersion.startsWith('24.')) {
    throw new Error(`the base image needs Node 24, but ${nodeBinary} is ${nodeVersion}`);
  }
  const image = `${BASE_IMAGE}:${nodeVersion}`;
  if (await exists(image)) {
    await run('podman', ['tag', image, `${BASE_IMAGE}:latest`]);
    return { image, nodeVersion, built: false };
  }
  const root = mkdtempSync(join(tmpdir(), 'kfx-base-rootfs-'));
  try {
    mkdirSync(join(root, 'usr/local/bin'), { recursive: true });
    copyFileSync(nodeBinary, join(root, 'usr/local/bin/node'));
    chmodSync(join(root, 'usr/local/bin/node'), 0o755);
    try {
      execFileSync('strip', [join(root, 'usr/local/bin/node')]); // ~18 MB of symbols
    } catch {
      // binutils absent: a larger image, still correct.
    }
    for (const lib of sharedLibraries(nodeBinary)) {
      mkdirSync(join(root, dirname(lib)), { recursive: true });
      copyFileSync(lib, join(root, lib)); // copyFileSync follows symlinks: the real file lands
    }
    mkdirSync(join(root, 'etc'));
    writeFileSync(
      join(root, 'etc/passwd'),
      `root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:${NONROOT_UID}:${NONROOT_UID}:nonroot:/home/nonroot:/sbin/nologin\n`,
    );
    writeFileSync(join(root, 'etc/group'), `root:x:0:\nnonroot:x:${NONROOT_UID}:\n`);
    mkdirSync(join(root, 'tmp'));
    chmodSync(join(root, 'tmp'), 0o1777);
    mkdirSync(join(root, 'app'));
    const tar = execFileSync(
      'tar',
      ['-C', root, '--owner=0', '--group=0', '--numeric-owner', '-c', '.'],
      {
        maxBuffer: 512 * 1024 * 1024,
      },
    );
    await run(
      'podman',
      [
        'import',
        '--change',
        'ENV PATH=/usr/local/bin',
        '--change',
        `USER ${NONROOT_UID}:${NONROOT_UID}`,
        '--change',
        'WORKDIR /app',
        '--change',
        `LABEL org.opencontainers.image.title=kfx-node24-base org.opencontainers.image.version=${nodeVersion} org.opencontainers.image.licenses=MIT`,
        '-',
        image,
      ],
      tar,
    );
    await run('podman', ['tag', image, `${BASE_IMAGE}:latest`]);
    return { image, nodeVersion, built: true };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
