// One container on the remote node: a copy of its image's root filesystem, and its process run as
// a batch system runs a job: in the remote node's network namespace, in a mount and pid namespace
// of its own (its own /proc, a minimal /dev, its volumes bound in), chrooted into that copy with
// exactly its environment, in the Pod's cgroup, its output recorded in a CRI log file. No image
// user, capability or seccomp settings apply: it runs as root, like the real node's daemons.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { recordStream } from './cri-log.js';
import type { UnpackedImage } from './images.js';

const run = promisify(execFile);

interface Mount {
  /** The folder on this machine. */
  source: string;
  /** Where the container sees it. */
  path: string;
  readOnly: boolean;
}

export interface ContainerSpec {
  /** The container's own folder (its rootfs, start script); made here. */
  dir: string;
  image: UnpackedImage;
  argv: string[];
  env: string[];
  workingDir: string;
  mounts: Mount[];
  /** The pid holding the remote node's network namespace. */
  netnsPid: number;
  /** A shell line that moves the shell into the Pod's cgroup. */
  joinCgroup: string;
  logFile: string;
}

export interface ContainerExit {
  exitCode: number;
  /** The signal that ended it, if one did. */
  signal?: string | undefined;
}

export interface RunningContainer {
  /** The process this module started (the namespaces' parent); signal the others to stop it. */
  pid: number;
  exited: Promise<ContainerExit>;
}

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
const DEVICES = ['null', 'zero', 'full', 'random', 'urandom', 'tty'];

/** Runs as pid 1 of the container's pid namespace, in its fresh mount namespace. */
function startScript(spec: ContainerSpec, rootfs: string): string {
  const inRoot = (path: string) => quote(join(rootfs, path));
  return [
    'set -e',
    `mount -t proc proc ${inRoot('/proc')}`,
    `mount -t tmpfs -o mode=755,size=1m kfx-dev ${inRoot('/dev')}`,
    ...DEVICES.map(
      (d) => `: > ${inRoot(`/dev/${d}`)}; mount --bind /dev/${d} ${inRoot(`/dev/${d}`)}`,
    ),
    `mkdir ${inRoot('/dev/shm')}; mount -t tmpfs -o mode=1777 kfx-shm ${inRoot('/dev/shm')}`,
    `ln -s /proc/self/fd ${inRoot('/dev/fd')}`,
    ...['stdin', 'stdout', 'stderr'].map(
      (s, i) => `ln -s /proc/self/fd/${i} ${inRoot(`/dev/${s}`)}`,
    ),
    ...spec.mounts.flatMap((m) => [
      `mkdir -p ${inRoot(m.path)}`,
      `mount --bind ${quote(m.source)} ${inRoot(m.path)}`,
      ...(m.readOnly ? [`mount -o remount,bind,ro ${inRoot(m.path)}`] : []),
    ]),
    [
      'exec /usr/bin/env -i',
      ...spec.env.map(quote),
      `/usr/bin/unshare --root=${quote(rootfs)} --wd=${quote(spec.workingDir)} --`,
      ...spec.argv.map(quote),
    ].join(' '),
    '',
  ].join('\n');
}

export async function startContainer(spec: ContainerSpec): Promise<RunningContainer> {
  if (spec.argv.length === 0) throw new Error('no command: the container and its image name none');
  const rootfs = join(spec.dir, 'rootfs');
  mkdirSync(spec.dir, { recursive: true });
  await run('cp', ['-a', `${spec.image.rootfs}/.`, rootfs]);
  for (const path of ['/proc', '/dev', spec.workingDir]) {
    mkdirSync(join(rootfs, path), { recursive: true });
  }
  const script = join(spec.dir, 'start.sh');
  writeFileSync(script, startScript(spec, rootfs), { mode: 0o700 });
  mkdirSync(dirname(spec.logFile), { recursive: true });
  writeFileSync(spec.logFile, '');
  const child = spawn(
    'sh',
    [
      '-c',
      // Never outside the Pod's cgroup: without it, nothing could find the process to kill it.
      `set -e; ${spec.joinCgroup}; exec "$@"`,
      'sh',
      'nsenter',
      `--net=/proc/${spec.netnsPid}/ns/net`,
      '--',
      'unshare',
      '--mount',
      '--pid',
      '--fork',
      '--kill-child',
      '--propagation',
      'private',
      '--',
      'sh',
      script,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' },
    },
  );
  const streams = Promise.all([
    recordStream(child.stdout, 'stdout', spec.logFile),
    recordStream(child.stderr, 'stderr', spec.logFile),
  ]);
  const exited = new Promise<ContainerExit>((resolve) => {
    child.once('error', (error) => {
      resolve({ exitCode: 128, signal: error.message });
    });
    child.once('exit', (code, signal) => {
      // The log is complete once both pipes have closed.
      void streams.then(() => {
        resolve(
          signal ? { exitCode: 128 + constants.signals[signal], signal } : { exitCode: code ?? 0 },
        );
      });
    });
  });
  return { pid: child.pid ?? 0, exited };
}
