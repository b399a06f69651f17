// Which failed API requests are retried, and after how long. Reads (and watches) are safe to
// repeat, so they retry on connection errors, 5xx and 429. A write is repeated only when the
// server cannot have acted on it: it answered 429, or the connection was refused before sending.
import { backoffDelay } from '../backoff.js';
import { KubeApiError } from './errors.js';
import { wasNotSent } from './http-request.js';

export interface RetryOptions {
  /** Retries after the first attempt. Default 5. */
  retries?: number | undefined;
  /** First backoff delay. Default 200 ms. */
  baseMs?: number | undefined;
  /** Longest backoff delay. Default 10 s. */
  maxMs?: number | undefined;
}

/** A Retry-After longer than this is cut short: the caller's own loop will come back. */
const MAX_RETRY_AFTER_MS = 60_000;

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Milliseconds to wait before retrying, or undefined when the error is final. */
export function retryDelay(
  method: string,
  error: unknown,
  attempt: number,
  options: RetryOptions = {},
): number | undefined {
  const { retries = 5, baseMs = 200, maxMs = 10_000 } = options;
  if (attempt >= retries || !(error instanceof KubeApiError)) return undefined;
  const backoff = backoffDelay(attempt, { baseMs, maxMs, jitter: 0.2 });
  const fromServer =
    error.retryAfterMs === undefined ? undefined : Math.min(error.retryAfterMs, MAX_RETRY_AFTER_MS);
  if (error.status === 429) return fromServer ?? backoff;
  if (IDEMPOTENT.has(method)) {
    if (error.status === 0 && error.reason !== 'BadWatchEvent') return backoff;
    if (error.status >= 500 && error.status !== 501) return fromServer ?? backoff;
    return undefined;
  }
  return wasNotSent(error) ? backoff : undefined;
}
