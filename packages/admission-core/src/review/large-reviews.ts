// Large reviews take turns and let the event loop breathe between their steps. A Pod with 20,000
// containers takes hundreds of milliseconds to copy, diff and check; done in one piece, every
// other review and /healthz waits that long, and several at once hold several times the memory.
// So a body over LARGE_REVIEW_BYTES waits for the one large-review turn (per process), and
// yields between its steps so the small reviews that arrived meanwhile are answered.

/** Bodies over this many characters are large: about 5,000 values, some milliseconds of work. */
export const LARGE_REVIEW_BYTES = 128 * 1024;

let last: Promise<void> = Promise.resolve();

/** Resolves when it is this review's turn, with the function that ends the turn. */
export function largeReviewTurn(): Promise<() => void> {
  let end: () => void = () => undefined;
  const turn = new Promise<void>((resolve) => {
    end = resolve;
  });
  const ready = last.then(() => end);
  last = last.then(() => turn);
  return ready;
}

/** Lets pending I/O (other requests, health checks) run before the next step. */
export function yieldToOthers(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
