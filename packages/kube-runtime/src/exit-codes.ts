// How every kfx process ends, in one place: kfx-webhook, kfx-controller and the kfx CLI map
// what went wrong to the same exit codes, so a bad configuration reads the same (2) whichever
// of them was given it, and a crash loop is told apart from a typo in a manifest.
import { ConfigError } from './config-issues.js';
import { messageOf } from './message-of.js';

export const EXIT = {
  ok: 0,
  /** It started but failed at run time (or, for the CLI, what it ran found a problem). */
  failure: 1,
  /** A bad command line or configuration (file unreadable, invalid): nothing was started. */
  badConfig: 2,
  /** Stopped by Ctrl-C (SIGINT), after cleaning up. */
  interrupted: 130,
  /** Stopped by SIGTERM where that is not the normal way to stop. */
  terminated: 143,
} as const;

/** A bad command line (unknown flag, missing value): exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * The exit code for what an entry point caught: 2 for a bad command line or configuration
 * (`UsageError`, `ConfigError`), an error's own numeric `exitCode` when it has one, else
 * `otherwise` (default 1, a run-time failure).
 */
export function exitCodeOf(error: unknown, otherwise: number = EXIT.failure): number {
  if (error instanceof UsageError || error instanceof ConfigError) return EXIT.badConfig;
  const own = (error as { exitCode?: unknown } | undefined)?.exitCode;
  if (typeof own === 'number' && Number.isInteger(own)) return own;
  return otherwise;
}

/**
 * Runs an app's `main` and sets `process.exitCode` from what it returns (a code, or nothing when
 * it keeps serving) or throws: `name: message` on stderr and `exitCodeOf(error)`.
 */
export async function runEntry(
  name: string,
  main: () => Promise<number | undefined>,
  stderr: (text: string) => void = (text) => process.stderr.write(text),
): Promise<void> {
  try {
    const code = await main();
    if (code !== undefined) process.exitCode = code;
  } catch (error) {
    const message = messageOf(error);
    stderr(`${name}: ${message}\n`);
    process.exitCode = exitCodeOf(error);
  }
}
