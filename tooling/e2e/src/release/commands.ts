// Running the tools a release uses (npm, pnpm, changeset, the installed kfx) as child processes
// with a clean environment: Node 24 first on PATH, no npm/pnpm settings inherited from the
// script that started the tests, no spinners, and an npm user config of the test's own.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Completed } from '../apps.js';

export interface RunOptions {
  cwd: string;
  /** Added to (and overriding) the clean environment. */
  env?: Record<string, string>;
}

/** The workspace's own tools (pnpm, changeset), whatever started the tests. */
const WORKSPACE_BIN = fileURLToPath(new URL('../../../../node_modules/.bin', import.meta.url));

/** This process's environment without npm_* and pnpm_* settings, Node 24 and the workspace's tools first. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm|pnpm)_/i.test(key)) env[key] = value;
  }
  env.PATH = `${dirname(process.execPath)}:${WORKSPACE_BIN}:${process.env.PATH ?? ''}`;
  env.CI = 'true';
  env.NO_COLOR = '1';
  return { ...env, ...extra };
}

export async function run(
  command: string,
  args: readonly string[],
  options: RunOptions,
): Promise<Completed> {
  const child = spawn(command, args, { cwd: options.cwd, env: cleanEnv(options.env) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end();
  const [code] = (await Promise.race([
    once(child, 'close'),
    once(child, 'error').then(([error]) => {
      stderr += String(error);
      return [127];
    }),
  ])) as [number | null];
  return { code, stdout, stderr };
}

const tail = (text: string) => text.trim().split('\n').slice(-30).join('\n');

/** Runs to the end and returns stdout; throws with the command, folder and output otherwise. */
export async function ok(
  command: string,
  args: readonly string[],
  options: RunOptions,
): Promise<string> {
  const result = await run(command, args, options);
  if (result.code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} (in ${options.cwd}) exited ${String(result.code)}:\n${tail(result.stderr)}\n${tail(result.stdout)}`,
    );
  }
  return result.stdout;
}
