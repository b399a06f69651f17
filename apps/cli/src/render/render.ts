// How `kfx uat run` shows a run: a live step list with spinners on a terminal, plain timestamped
// lines in CI (no TTY, or CI set), JSON lines for machines. All three read the same events.
import { JsonRenderer } from './json.js';
import { PlainRenderer } from './plain.js';
import { TtyRenderer } from './tty.js';
import type { Output, Renderer } from './common.js';

export type { Output, Renderer } from './common.js';

export const OUTPUT_FORMATS = ['text', 'json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** True in CI systems, which set CI (GitHub Actions, GitLab CI, Jenkins and most others). */
export function inCi(env: NodeJS.ProcessEnv): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== 'false' && value !== '0';
}

export function createRenderer(
  format: OutputFormat,
  output: Output,
  env: NodeJS.ProcessEnv,
): Renderer {
  if (format === 'json') return new JsonRenderer(output);
  if (output.isTTY && !inCi(env))
    return new TtyRenderer(output, { color: env.NO_COLOR === undefined });
  return new PlainRenderer(output);
}

export function stdoutOutput(): Output {
  return {
    write: (text) => process.stdout.write(text),
    isTTY: process.stdout.isTTY,
    columns: process.stdout.columns || 100,
  };
}
