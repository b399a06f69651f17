// Running podman and buildah the way this kind of host needs: the runc runtime (crun fails on
// some cgroup set-ups) and a containers.conf without default ulimits (they cannot be raised
// inside unprivileged sandboxes). The settings live in a file of our own, passed through
// CONTAINERS_CONF, so the host's configuration is never changed.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

let confPath: string | undefined;

function containersConf(): string {
  if (confPath) return confPath;
  // Beside the test bed's binaries ($KFX_CACHE_DIR, else $XDG_CACHE_HOME/kfx, else ~/.cache/kfx),
  // not in the temp folder, which a test run leaves as it found it.
  const { KFX_CACHE_DIR, XDG_CACHE_HOME } = process.env;
  const dir = join(
    KFX_CACHE_DIR ?? join(XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kfx'),
    'containers',
  );
  mkdirSync(dir, { recursive: true });
  confPath = join(dir, 'containers.conf');
  writeFileSync(confPath, '[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\n');
  return confPath;
}

export function containerEnv(): NodeJS.ProcessEnv {
  return { ...process.env, CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? containersConf() };
}

export class CommandError extends Error {
  constructor(
    readonly command: string,
    readonly exitCode: number | null,
    readonly output: string,
  ) {
    super(
      `${command} failed (exit ${exitCode ?? 'signal'}): ${output.trim().split('\n').slice(-15).join('\n')}`,
    );
    this.name = 'CommandError';
  }
}

/** Runs a command to completion; resolves with stdout, rejects with the tail of its output. */
export function run(
  cmd: string,
  args: readonly string[],
  input?: Buffer | string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      cmd,
      args,
      { env: containerEnv(), maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          const code = typeof error.code === 'number' ? error.code : null;
          reject(
            new CommandError(`${cmd} ${args.slice(0, 3).join(' ')}`, code, `${stderr}\n${stdout}`),
          );
        } else resolve(stdout);
      },
    );
    child.stdin?.end(input);
  });
}

/** Starts a long-running command (a container in the foreground); output goes to `log`. */
export function start(cmd: string, args: readonly string[], log: (chunk: string) => void) {
  const child = spawn(cmd, args, { env: containerEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (c: Buffer) => {
    log(c.toString());
  });
  child.stderr.on('data', (c: Buffer) => {
    log(c.toString());
  });
  return child;
}

/** Why containers cannot run here, or undefined when they can. */
export async function containersUnavailable(probeImage?: string): Promise<string | undefined> {
  for (const tool of ['podman', 'buildah']) {
    try {
      await run(tool, ['--version']);
    } catch {
      return `${tool} is not installed (Debian: apt-get install podman buildah runc)`;
    }
  }
  if (!probeImage) return undefined;
  try {
    await run('podman', [
      'run',
      '--rm',
      '--network=host',
      probeImage,
      '/usr/local/bin/node',
      '-e',
      '0',
    ]);
    return undefined;
  } catch (error) {
    return `podman cannot run containers here: ${(error as Error).message}`;
  }
}
