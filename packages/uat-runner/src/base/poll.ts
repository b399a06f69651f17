// Waiting on a condition the API answers with a GET: checked once a second, each answer turned
// into a short "what I saw" for progress output, and a timeout that repeats the last thing seen.
import { sleep } from '@kfx/kube-runtime/client';
import { UatError } from './outcome.js';

export type Check<T> = () => Promise<{ done: true; value: T } | { done: false; saw: string }>;

export interface PollOptions {
  timeoutMs: number;
  /** Default 1 s. */
  intervalMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Called when what the check sees changes. */
  onSaw?: ((saw: string) => void) | undefined;
  /** The error message on timeout, given the last thing seen. */
  timeoutMessage: (saw: string) => string;
}

export async function pollUntil<T>(check: Check<T>, options: PollOptions): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let lastSaw = '';
  for (;;) {
    options.signal?.throwIfAborted();
    const result = await check();
    if (result.done) return result.value;
    if (result.saw !== lastSaw) options.onSaw?.(result.saw);
    lastSaw = result.saw;
    const left = deadline - Date.now();
    if (left <= 0) throw new UatError(options.timeoutMessage(lastSaw));
    await sleep(Math.min(options.intervalMs ?? 1000, left), options.signal);
  }
}
