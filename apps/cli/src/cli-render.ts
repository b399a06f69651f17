// How `kfx uat run` shows a run: a live step list with spinners on a terminal, plain timestamped
// lines in CI (no TTY, or CI set), JSON lines for machines. All three read the same events.
import type { RunEvent, UatResult } from '@kfx/uat-runner';
import { JsonRenderer } from './cli-render-json.js';
import { PlainRenderer } from './cli-render-plain.js';
import { TtyRenderer } from './cli-render-tty.js';

export interface Renderer {
  event(event: RunEvent): void;
  result(result: UatResult): void;
  /** Stops timers (spinners); output already written stays. */
  close(): void;
}

export interface Output {
  write(text: string): void;
  isTTY: boolean;
  /** Terminal width, for lines that must not wrap. */
  columns: number;
}

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

/** The closing line every text format ends with: outcome, reason, exit code. */
export function resultLine(result: UatResult): string {
  const junit = result.junit
    ? ` — JUnit: ${result.junit.tests} tests, ${result.junit.failures} failures, ${result.junit.errors} errors`
    : '';
  return `${result.outcome.toUpperCase()}: ${result.reason}${junit} (exit ${result.exitCode}, ${result.durationSeconds.toFixed(1)}s)`;
}
