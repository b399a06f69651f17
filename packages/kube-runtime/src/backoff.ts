// Capped exponential backoff, per key when failures are counted per object, plus the two small
// helpers every retry loop needs: an abortable sleep and Retry-After parsing.
import { setTimeout as delay } from 'node:timers/promises';

export interface BackoffOptions {
  /** Delay after the first failure. */
  baseMs: number;
  /** The delay never grows beyond this. */
  maxMs: number;
  /** Growth per failure. Default 2. */
  factor?: number;
  /**
   * Fraction of random spread, 0..1: 0.2 turns a 1 s delay into 0.8–1.2 s, so that many clients
   * failing together do not retry together. Default 0.
   */
  jitter?: number;
}

/** The delay before retry number `attempt` (0 for the first retry). */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const { baseMs, maxMs, factor = 2, jitter = 0 } = options;
  // Cap the exponent so that a long outage cannot overflow to Infinity.
  const raw = baseMs * factor ** Math.min(attempt, 64);
  const capped = Math.min(maxMs, raw);
  if (jitter <= 0) return capped;
  const spread = capped * Math.min(jitter, 1);
  return Math.max(0, Math.round(capped - spread + Math.random() * 2 * spread));
}

/** Failure counts per key: each failure doubles that key's delay, a success forgets it. */
export class KeyedBackoff<K> {
  readonly #failures = new Map<K, number>();

  constructor(private readonly options: BackoffOptions) {}

  /** Counts a failure and returns how long to wait before retrying the key. */
  next(key: K): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    return backoffDelay(failures, this.options);
  }

  failures(key: K): number {
    return this.#failures.get(key) ?? 0;
  }

  forget(key: K): void {
    this.#failures.delete(key);
  }
}

/**
 * Reads `signal.aborted` through a call: after an await the flag may have changed, which
 * TypeScript's narrowing (from an earlier check) cannot know.
 */
export function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  try {
    await delay(ms, undefined, signal ? { signal } : undefined);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw error;
  }
}

/** Retry-After as delta-seconds or an HTTP date, in milliseconds; undefined when absent or bad. */
export function parseRetryAfter(
  header: string | string[] | undefined,
  now = Date.now(),
): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
