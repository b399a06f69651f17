// How many requests the proxy holds at once, split the way the apiserver splits its own
// --max-requests-inflight and --max-mutating-requests-inflight: requests that carry a body or
// change something, and those that only read. Slow bodies then fill only the first kind, and
// reads go on. Watches and followed logs are long-running and exempt (as in the apiserver);
// they, like upgrades, are bounded by the connection cap instead.
import type { Gauge } from 'prom-client';
import type { StreamKind } from './metrics.js';
import type { ProxyStatus } from './status-response.js';

export type InflightClass = 'readonly' | 'mutating';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface InflightLimitOptions {
  /** Requests without a body that only read (GET, HEAD, OPTIONS). */
  readonly: number;
  /** Requests with a body, and every other method. */
  mutating: number;
}

/** The class a request counts against, or undefined for a long-running one without a body. */
export function inflightClass(
  method: string,
  kind: StreamKind,
  withBody: boolean,
): InflightClass | undefined {
  if (withBody || !READ_METHODS.has(method)) return 'mutating';
  return kind === 'request' ? 'readonly' : undefined;
}

export class InflightLimits {
  readonly limits: InflightLimitOptions;
  readonly #held: Record<InflightClass, number> = { readonly: 0, mutating: 0 };
  readonly #gauge: Gauge<'class'> | undefined;

  constructor(limits: InflightLimitOptions, gauge?: Gauge<'class'>) {
    this.limits = limits;
    this.#gauge = gauge;
    gauge?.set({ class: 'readonly' }, 0);
    gauge?.set({ class: 'mutating' }, 0);
  }

  /** A place for one request, or undefined when the class is full; release it exactly once. */
  tryAcquire(inflight: InflightClass): (() => void) | undefined {
    if (this.#held[inflight] >= this.limits[inflight]) return undefined;
    this.#held[inflight]++;
    this.#gauge?.inc({ class: inflight });
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held[inflight]--;
      this.#gauge?.dec({ class: inflight });
    };
  }

  /** The 429 for a request that found its class full; client-go retries after Retry-After. */
  refusal(inflight: InflightClass): ProxyStatus {
    const which =
      inflight === 'mutating'
        ? `${this.limits.mutating} with a body or a method that changes something (the proxy's maxMutatingRequestsInflight limit)`
        : `${this.limits.readonly} that only read (the proxy's maxRequestsInflight limit)`;
    return {
      code: 429,
      message: `too many requests in flight: ${which}; retry shortly`,
      retryAfterSeconds: 1,
    };
  }
}
