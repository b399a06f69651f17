// The images a real node runs without a registry: the pod sandbox ("pause", compiled from the
// Kubernetes module's own pause.c) and small test images made of a static busybox, optionally
// with the static `fetch` client, plus whatever a test adds (a script, a JUnit file).
import { execFileSync } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BinaryMissingError, goModuleDir, requireBinaries } from '../binaries.js';
import { writeImageArchive, type ImageEntry } from '../oci-archive.js';
import { BUSYBOX } from './host.js';

export const PAUSE_IMAGE = 'kfx.test/pause:3.10';

/** Where the sandbox image archive lives in the binary cache. */
const pauseArchivePath = (cacheDir: string) => join(cacheDir, 'pause.tar');

/** The sandbox image archive, which the set-up built (buildPauseImage); throws if it did not. */
export function pauseImageArchive(cacheDir: string): string {
  const archive = pauseArchivePath(cacheDir);
  if (!existsSync(archive)) throw new BinaryMissingError(['pause (the sandbox image)']);
  return archive;
}

/**
 * Compiles the sandbox image into the binary cache unless it is there (the set-up's
 * `kfx-testenv binaries`, beside the kubelet); returns the archive's path.
 */
export function buildPauseImage(cacheDir: string): string {
  const archive = pauseArchivePath(cacheDir);
  if (existsSync(archive)) return archive;
  const moduleDir = execFileSync('go', ['list', '-m', '-f', '{{.Dir}}', 'k8s.io/kubernetes'], {
    cwd: goModuleDir,
    encoding: 'utf8',
    env: { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=readonly' },
  }).trim();
  const binary = join(cacheDir, `.pause-${process.pid}`);
  const partial = join(cacheDir, `.pause.tar-${process.pid}`);
  try {
    execFileSync('gcc', [
      '-Os',
      '-static',
      '-DVERSION=3.10',
      '-o',
      binary,
      join(moduleDir, 'build', 'pause', 'linux', 'pause.c'),
    ]);
    writeImageArchive(partial, {
      name: PAUSE_IMAGE,
      entries: [{ path: '/pause', type: 'copy', source: binary, mode: 0o755 }],
      entrypoint: ['/pause'],
      user: '65535:65535',
    });
    renameSync(partial, archive); // atomic: a concurrent build just writes the same file
  } finally {
    rmSync(binary, { force: true });
    rmSync(partial, { force: true });
  }
  return archive;
}

/** busybox applets the test images link, enough for scripts. */
const APPLETS = [
  'sh',
  'cat',
  'echo',
  'printf',
  'sleep',
  'ls',
  'env',
  'test',
  '[',
  'true',
  'false',
  'mkdir',
  'rm',
  'cp',
  'mv',
  'grep',
  'sed',
  'head',
  'tail',
  'wc',
  'date',
  'id',
  'hostname',
  'tr',
  'cut',
  'sort',
  'awk',
  'tee',
  'touch',
  'chmod',
  'wget',
  'nc',
  'uname',
  'xargs',
  'basename',
  'dirname',
  'expr',
  'seq',
  'kill',
  'ps',
];

export interface ShellImageOptions {
  /** Full reference, e.g. `kfx.test/uat-suite:1`. */
  name: string;
  /** Also `/usr/bin/fetch`, the static HTTP client that honours the proxy variables. */
  fetch?: string | undefined;
  /** More files (scripts, data). */
  entries?: readonly ImageEntry[];
  entrypoint?: readonly string[] | undefined;
  cmd?: readonly string[] | undefined;
  user?: string | undefined;
}

/** A busybox image (sh and friends in /bin), written as an archive at `path`. */
export function writeShellImage(path: string, options: ShellImageOptions): string {
  writeImageArchive(path, {
    name: options.name,
    entries: [
      { path: '/bin/busybox', type: 'copy', source: BUSYBOX, mode: 0o755 },
      ...APPLETS.map((applet): ImageEntry => ({
        path: `/bin/${applet}`,
        type: 'symlink',
        target: 'busybox',
      })),
      { path: '/tmp', type: 'dir', mode: 0o1777 },
      ...(options.fetch
        ? [{ path: '/usr/bin/fetch', type: 'copy' as const, source: options.fetch, mode: 0o755 }]
        : []),
      ...(options.entries ?? []),
    ],
    entrypoint: options.entrypoint,
    cmd: options.cmd ?? ['sh'],
    user: options.user,
  });
  return path;
}

/**
 * `/usr/bin/kubectl`: the test bed's static kubectl, for images of workloads that call the API
 * (add it to `entries`). Throws BinaryMissingError before the set-up has built it.
 */
export function kubectlEntry(): ImageEntry {
  const { kubectl } = requireBinaries(['kubectl']);
  return { path: '/usr/bin/kubectl', type: 'copy', source: kubectl, mode: 0o755 };
}
