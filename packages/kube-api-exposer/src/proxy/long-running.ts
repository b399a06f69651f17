// Long-running requests — watches, followed logs and upgraded connections (exec, attach,
// port-forward, WebSocket) — are exempt from the in-flight limits, as in the apiserver, but
// each holds a connection and a connection to the apiserver for as long as it lasts. They get a
// cap of their own, below the connection cap so that plain requests keep room, and a cap per
// identity (see identity.ts), so that one tenant's token, or all the ServiceAccounts of its
// namespace, cannot hold them all. A place is taken before the request goes upstream (so that
// requests opened at once cannot overshoot) and given back when it ends: a forged or refused
// one ends as soon as the apiserver answers.
import type { CallerIdentity } from './identity.js';
import type { ProxyStatus } from './status-response.js';

export interface LongRunningLimitOptions {
  maxLongRunning: number;
  maxLongRunningPerIdentity: number;
}

export type LongRunningLimit = keyof LongRunningLimitOptions;

/** Seconds a refused client waits: places free up as other streams end, not within a second. */
const RETRY_AFTER_SECONDS = 5;

const WHAT = 'long-running requests (watches, followed logs, exec, attach, port-forward)';

export type LongRunningPlace =
  | { release: () => void; refused?: undefined }
  | { refused: { limit: LongRunningLimit; status: ProxyStatus }; release?: undefined };

export class LongRunningLimits {
  readonly limits: LongRunningLimitOptions;
  #total = 0;
  readonly #byIdentity = new Map<string, number>();

  constructor(limits: LongRunningLimitOptions) {
    this.limits = limits;
  }

  /** A place for one long-running request of `identity`; release it exactly once. */
  tryAcquire(identity: CallerIdentity): LongRunningPlace {
    const held = this.#byIdentity.get(identity.key) ?? 0;
    if (held >= this.limits.maxLongRunningPerIdentity) {
      return this.#refusal(
        'maxLongRunningPerIdentity',
        `${WHAT} for ${identity.description}: ${this.limits.maxLongRunningPerIdentity} at once`,
      );
    }
    if (this.#total >= this.limits.maxLongRunning) {
      return this.#refusal(
        'maxLongRunning',
        `${WHAT} on this proxy: ${this.limits.maxLongRunning} at once`,
      );
    }
    this.#total++;
    this.#byIdentity.set(identity.key, held + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#total--;
        const left = (this.#byIdentity.get(identity.key) ?? 1) - 1;
        if (left === 0) this.#byIdentity.delete(identity.key);
        else this.#byIdentity.set(identity.key, left);
      },
    };
  }

  #refusal(limit: LongRunningLimit, what: string): LongRunningPlace {
    return {
      refused: {
        limit,
        status: {
          code: 429,
          message: `too many ${what} (the proxy's ${limit} limit); retry later`,
          retryAfterSeconds: RETRY_AFTER_SECONDS,
        },
      },
    };
  }
}
