// The built kfx binaries (apps/*/dist/main.js, which turbo builds before these tests run) as
// child processes: a long-running server with its log in a file, or a command run to its end.
// Running the shipped entry points, not their libraries, proves what an operator runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, openSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export type AppPackage = '@kfx/webhook-app' | '@kfx/controller-app' | '@kfx/cli';

/** The built entry point of an app package, with a clear error when it was not built. */
export function appEntry(pkg: AppPackage): string {
  const require = createRequire(import.meta.url);
  const entry = join(dirname(require.resolve(`${pkg}/package.json`)), 'dist', 'main.js');
  if (!existsSync(entry)) {
    throw new Error(`${entry} does not exist: build ${pkg} first (turbo run build does it)`);
  }
  return entry;
}

export interface RunningApp {
  logFile: string;
  /** The log so far, for assertions and failure messages. */
  log(): string;
  /** Exit code and signal once it has exited, else undefined. */
  exited(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** SIGTERM, then SIGKILL after 10 s; resolves once the process is gone. */
  stop(): Promise<void>;
}

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** Starts `pkg`'s binary with `args`, stdout and stderr into `logFile`. */
export function startApp(
  pkg: AppPackage,
  args: readonly string[],
  logFile: string,
  options: StartOptions = {},
): RunningApp {
  const fd = openSync(logFile, 'a');
  const child: ChildProcess = spawn(process.execPath, [appEntry(pkg), ...args], {
    stdio: ['ignore', fd, fd],
    env: options.env ?? process.env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  const hasExited = () => child.exitCode !== null || child.signalCode !== null;
  return {
    logFile,
    log: () => readFileSync(logFile, 'utf8'),
    exited: () => (hasExited() ? { code: child.exitCode, signal: child.signalCode } : undefined),
    async stop() {
      process.removeListener('exit', kill);
      if (hasExited()) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(kill, 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface Completed {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `pkg`'s binary to its end and collects its output. */
export async function runApp(
  pkg: AppPackage,
  args: readonly string[],
  options: StartOptions & { input?: string } = {},
): Promise<Completed> {
  const child = spawn(process.execPath, [appEntry(pkg), ...args], {
    env: options.env ?? process.env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(options.input ?? '');
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}
