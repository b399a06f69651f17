// Waiting for a condition with a deadline, and a timeout error that says what was last seen,
// so a failing test explains itself instead of printing "timed out".
import { setTimeout as sleep } from 'node:timers/promises';

export class WaitTimeoutError extends Error {
  constructor(
    readonly description: string,
    readonly timeoutMs: number,
    readonly lastSeen: string,
  ) {
    super(
      `timed out after ${(timeoutMs / 1000).toFixed(1)}s waiting for ${description}; last saw: ${lastSeen}`,
    );
    this.name = 'WaitTimeoutError';
  }
}

export interface WaitOptions {
  /** What is being waited for, e.g. "namespace team-a to be Active". */
  description: string;
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Calls `check` until it returns `{ done: true, value }`. Each call may also report what it saw
 * (`{ done: false, saw }`); a thrown error counts as what it saw and the wait goes on.
 */
export async function waitFor<T>(
  check: () => Promise<{ done: true; value: T } | { done: false; saw: string }>,
  options: WaitOptions,
): Promise<T> {
  const { description, timeoutMs = 30_000, intervalMs = 100 } = options;
  const deadline = Date.now() + timeoutMs;
  let lastSeen: string;
  for (;;) {
    try {
      const result = await check();
      if (result.done) return result.value;
      lastSeen = result.saw;
    } catch (error) {
      lastSeen = `error: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (Date.now() >= deadline) throw new WaitTimeoutError(description, timeoutMs, lastSeen);
    await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
}

export interface UntilOptions {
  /** Default 30 s: a deadline for a stuck test, never a measure of speed. */
  timeoutMs?: number;
  intervalMs?: number;
  /** What was seen instead, for the timeout's message. */
  saw?: () => string;
}

/**
 * Resolves with what `check` returns once that is neither undefined nor false; a thrown error
 * counts as what it saw. After `timeoutMs` it fails naming `what` (e.g. "the lease to move").
 */
export async function until<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  options: UntilOptions = {},
): Promise<T> {
  const { timeoutMs = 30_000, intervalMs = 10, saw = () => 'not yet' } = options;
  return waitFor(
    async () => {
      const value = await check();
      return value === undefined || value === false
        ? { done: false as const, saw: saw() }
        : { done: true as const, value };
    },
    { description: what, timeoutMs, intervalMs },
  );
}
