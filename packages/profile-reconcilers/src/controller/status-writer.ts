// Writes the KfxReconciled condition (and the Warning Events that go with a new one) to each
// Profile, after the objects: reports wait while the work queue is busy, at most `maxDelayMs`,
// and only the latest report of a Profile is written. Under a burst (a restart with thousands
// of Profiles, a config change touching all of them) the objects that enforce policy land
// first and the bookkeeping follows; at rest the queue is idle and status is written at once.
// Nothing is written when the condition did not change; the patch carries the resourceVersion
// read, so a Profile changed meanwhile gets a 409 and a retry, never a lost condition.
import {
  isConflict,
  resources,
  sleep,
  type EventInput,
  type EventRecorder,
  type KubeClient,
  type Logger,
  type ReadonlyStore,
} from '@kfx/kube-runtime';
import type { Profile, ProfileCondition } from '../profile.js';
import type { Echoes } from './echoes.js';
import {
  conditionFor,
  currentCondition,
  sameCondition,
  withCondition,
  type Outcome,
} from './status.js';

export interface StatusReport {
  outcome: Outcome;
  /** Recorded on the Profile when the condition changes (ignored labels, errors). */
  warnings: EventInput[];
}

interface Pending {
  report: StatusReport;
  since: number;
  notBefore: number;
  failures: number;
}

export interface StatusWriterOptions {
  client: KubeClient;
  profiles: ReadonlyStore<Profile>;
  recorder: EventRecorder;
  echoes: Echoes;
  logger: Logger;
  /** A report waits at most this long for the work queue to be idle. Default 10 s. */
  maxDelayMs?: number | undefined;
}

export class StatusWriter {
  readonly #o: StatusWriterOptions;
  readonly #pending = new Map<string, Pending>();
  /** Profile name → the condition last written, and the resourceVersion it was written over. */
  readonly #written = new Map<string, { over: string; condition: ProfileCondition }>();
  #wake: (() => void) | undefined;

  constructor(options: StatusWriterOptions) {
    this.#o = options;
  }

  submit(name: string, report: StatusReport): void {
    const now = Date.now();
    const previous = this.#pending.get(name);
    this.#pending.set(name, {
      report,
      since: previous?.since ?? now,
      notBefore: previous?.notBefore ?? now,
      failures: previous?.failures ?? 0,
    });
    this.#wake?.();
  }

  forget(name: string): void {
    this.#pending.delete(name);
    this.#written.delete(name);
  }

  /** Writes reports until `signal` aborts; `busy` says whether objects are still being applied. */
  async run(signal: AbortSignal, busy: () => boolean): Promise<void> {
    const maxDelayMs = this.#o.maxDelayMs ?? 10_000;
    const onAbort = () => this.#wake?.();
    const stopped = () => signal.aborted;
    signal.addEventListener('abort', onAbort);
    try {
      while (!signal.aborted) {
        const due = this.#due(busy(), maxDelayMs);
        if (!due) {
          if (this.#pending.size === 0) {
            await new Promise<void>((resolve) => {
              this.#wake = resolve;
            });
            this.#wake = undefined;
          } else {
            await sleep(50, signal).catch(() => undefined);
          }
          continue;
        }
        const [name, pending] = due;
        this.#pending.delete(name);
        try {
          await this.#write(name, pending.report, signal);
        } catch (error) {
          if (stopped()) break;
          // Unless a newer report came meanwhile, try this one again after a backoff.
          if (!this.#pending.has(name)) {
            const failures = pending.failures + 1;
            const delay = Math.min(30_000, 100 * 2 ** failures);
            this.#pending.set(name, { ...pending, failures, notBefore: Date.now() + delay });
          }
          const log = isConflict(error) ? 'debug' : 'warn';
          this.#o.logger[log]({ err: error, profile: name }, 'status not written; will retry');
        }
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** The oldest report that may be written now. */
  #due(busy: boolean, maxDelayMs: number): [string, Pending] | undefined {
    const now = Date.now();
    for (const entry of this.#pending) {
      const pending = entry[1];
      if (pending.notBefore <= now && (!busy || now - pending.since >= maxDelayMs)) return entry;
      // Insertion order is age order: if the oldest is not overdue, none is.
      if (busy && pending.failures === 0) return undefined;
    }
    return undefined;
  }

  async #write(name: string, report: StatusReport, signal: AbortSignal): Promise<void> {
    const profile = this.#o.profiles.get(name);
    if (!profile || profile.metadata?.deletionTimestamp) return;
    const resourceVersion = profile.metadata?.resourceVersion ?? '';
    const next = conditionFor(report.outcome, profile.metadata?.generation);
    if (sameCondition(currentCondition(profile), next)) return;
    // The cache has not caught up with our own last write yet.
    const written = this.#written.get(name);
    if (written?.over === resourceVersion && sameCondition(written.condition, next)) return;
    const patched = await this.#o.client.patch<Profile>(
      resources.profiles,
      name,
      { metadata: { resourceVersion }, status: { conditions: withCondition(profile, next) } },
      { subresource: 'status', type: 'merge', signal },
    );
    this.#written.set(name, { over: resourceVersion, condition: next });
    this.#o.echoes.expect(`profile/${name}`, patched.metadata?.resourceVersion);
    await Promise.all(report.warnings.map((event) => this.#o.recorder.record(profile, event)));
  }
}
