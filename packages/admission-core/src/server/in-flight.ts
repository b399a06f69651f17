// The bound on admissions in progress: how many, and how many bytes of request bodies and answers
// they hold until the client has read the answer. A burst beyond it is answered 429 with
// Retry-After at once, before its body is read, instead of being buffered until the process runs
// out of memory. The apiserver's client retries a 429 that
// carries Retry-After (within the webhook's timeout), so a short burst costs latency, not Pods.
import { BadRequestError } from '../review/bad-request.js';

export interface InFlightLimits {
  /** Admissions in progress at once (reading the body, waiting, running). */
  maxRequests: number;
  /** Bytes of request bodies (and answers not yet read) those admissions may hold together. */
  maxBytes: number;
}

/** One admission's share: the bytes it reserved, given back when it ends. */
export interface InFlightTicket {
  /** Reserves room for the body to grow to `total` bytes; the 429 to answer when there is none. */
  grow(total: number): BadRequestError | undefined;
  /**
   * Counts `bytes` more (the answer) even past the bound: the work is done, but until a slow
   * reader has taken the answer it is memory, and later requests must see it.
   */
  hold(bytes: number): void;
  /** Ends the admission and gives its bytes back. Safe to call twice. */
  release(): void;
}

function busy(message: string): BadRequestError {
  return new BadRequestError(429, 'too-many-requests', `the webhook is busy: ${message}; retry`);
}

export function createInFlight(limits: InFlightLimits) {
  let requests = 0;
  let bytes = 0;
  return {
    get requests() {
      return requests;
    },
    get bytes() {
      return bytes;
    },
    /**
     * Throws a 429 when the bytes held (bodies, and answers not yet taken by slow readers) are
     * already past the bound: asked before the work of a large review, whose answer can be many
     * times its body.
     */
    checkRoom(): void {
      if (bytes > limits.maxBytes) {
        throw busy(
          `answers not yet read and bodies in progress hold ${bytes} bytes, past ` +
            `${limits.maxBytes} (maxInFlightBytes)`,
        );
      }
    },
    /** A ticket for one more admission; throws a 429 BadRequestError when at the limit. */
    enter(): InFlightTicket {
      if (requests >= limits.maxRequests) {
        throw busy(`at its limit of ${limits.maxRequests} admissions in progress (maxInFlight)`);
      }
      requests += 1;
      let held = 0;
      let released = false;
      return {
        grow(total) {
          if (total <= held) return undefined;
          if (bytes + total - held > limits.maxBytes) {
            return busy(
              `a ${total}-byte body would take the bodies in progress past ` +
                `${limits.maxBytes} bytes (maxInFlightBytes)`,
            );
          }
          bytes += total - held;
          held = total;
          return undefined;
        },
        hold(more) {
          if (released) return;
          bytes += more;
          held += more;
        },
        release() {
          if (released) return;
          released = true;
          requests -= 1;
          bytes -= held;
        },
      };
    },
  };
}

export type InFlight = ReturnType<typeof createInFlight>;
