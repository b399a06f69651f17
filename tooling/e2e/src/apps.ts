// The built kfx binaries (apps/*/dist/main.js, which turbo builds before these tests run) as
// child processes: a long-running server with its log in a file, or a command run to its end.
// Running the shipped entry points, not their libraries, proves what an operator runs.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startProcess, type ManagedProcess } from '@kfx/testenv';

export type AppPackage = '@kfx/webhook-app' | '@kfx/controller-app' | '@kfx/cli';

const FOLDERS: Record<AppPackage, string> = {
  '@kfx/webhook-app': 'webhook',
  '@kfx/controller-app': 'controller',
  '@kfx/cli': 'cli',
};

/** The built entry point of an app in this repository, with a clear error when it was not built. */
export function appEntry(pkg: AppPackage): string {
  const entry = fileURLToPath(
    new URL(`../../../apps/${FOLDERS[pkg]}/dist/main.js`, import.meta.url),
  );
  if (!existsSync(entry)) {
    throw new Error(`${entry} does not exist: build ${pkg} first (turbo run build does it)`);
  }
  return entry;
}

export type RunningApp = ManagedProcess;

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
  return startProcess({
    name: pkg,
    command: process.execPath,
    args: [appEntry(pkg), ...args],
    logFile,
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
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
