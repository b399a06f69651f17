// Writes the KfxReconciled condition (and the Warning Events that go with a new one) to each
// Profile, in the reconcile that applied its objects: the status is written with the objects,
// not as a tail that trails them by a minute under a burst. A write that fails (a 409 because
// the Profile changed meanwhile, the API unreachable) is retried from a background loop with
// backoff, and only each Profile's latest report is kept. Nothing is written when the condition
// did not change; the patch carries the resourceVersion read, so a Profile changed meanwhile gets
// a 409 and a retry, never a lost condition.
import {
  isConflict,
  isNotFound,
  resources,
  sleep,
  type KubeClient,
} from '@kfx/kube-runtime/client';
import { type ReadonlyStore } from '@kfx/kube-runtime/informer';
import { type EventInput, type EventRecorder } from '@kfx/kube-runtime/controller';
import { type Logger } from '@kfx/kube-runtime/serving';
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
  /** About a Profile being deleted (what holds it): written to it, unlike a reconcile's. */
  terminating?: boolean | undefined;
}

interface Pending {
  report: StatusReport;
  notBefore: number;
  failures: number;
}

export interface StatusWriterOptions {
  client: KubeClient;
  profiles: ReadonlyStore<Profile>;
  recorder: EventRecorder;
  echoes: Echoes;
  logger: Logger;
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

  /**
   * Writes the report now (in the caller's reconcile); a failed write is retried later by run().
   * Never throws but when `signal` aborted.
   */
  async write(name: string, report: StatusReport, signal: AbortSignal): Promise<void> {
    // A newer report supersedes one still waiting for its retry.
    this.#pending.delete(name);
    try {
      await this.#write(name, report, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      this.#retryLater(name, { report, notBefore: 0, failures: 0 }, error);
    }
  }

  forget(name: string): void {
    this.#pending.delete(name);
    this.#written.delete(name);
  }

  /** Retries the writes that failed until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const onAbort = () => this.#wake?.();
    // A function, not the property: the loop's condition would narrow it to false.
    const stopped = () => signal.aborted;
    signal.addEventListener('abort', onAbort);
    try {
      while (!signal.aborted) {
        const due = this.#due();
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
          if (!this.#pending.has(name)) this.#retryLater(name, pending, error);
        }
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  #retryLater(name: string, pending: Pending, error: unknown): void {
    const failures = pending.failures + 1;
    const delay = Math.min(30_000, 100 * 2 ** failures);
    this.#pending.set(name, { ...pending, failures, notBefore: Date.now() + delay });
    const log = isConflict(error) ? 'debug' : 'warn';
    this.#o.logger[log]({ err: error, profile: name }, 'status not written; will retry');
    this.#wake?.();
  }

  /** The first report whose retry is due. */
  #due(): [string, Pending] | undefined {
    const now = Date.now();
    for (const entry of this.#pending) if (entry[1].notBefore <= now) return entry;
    return undefined;
  }

  async #write(name: string, report: StatusReport, signal: AbortSignal): Promise<void> {
    const profile = this.#o.profiles.get(name);
    if (!profile) return;
    // A reconcile's report is stale once the Profile is being deleted.
    if (profile.metadata?.deletionTimestamp && !report.terminating) return;
    const resourceVersion = profile.metadata?.resourceVersion ?? '';
    const next = conditionFor(report.outcome, profile.metadata?.generation);
    if (sameCondition(currentCondition(profile), next)) return;
    // The cache has not caught up with our own last write yet.
    const written = this.#written.get(name);
    if (written?.over === resourceVersion && sameCondition(written.condition, next)) return;
    const patched = await this.#o.client
      .patch<Profile>(
        resources.profiles,
        name,
        { metadata: { resourceVersion }, status: { conditions: withCondition(profile, next) } },
        { subresource: 'status', type: 'merge', signal },
      )
      .catch((error: unknown) => {
        // Deleted meanwhile (its last finalizer went): nothing to report on.
        if (report.terminating && isNotFound(error)) return undefined;
        throw error;
      });
    if (!patched) return;
    this.#written.set(name, { over: resourceVersion, condition: next });
    this.#o.echoes.expect(`profile/${name}`, patched.metadata?.resourceVersion);
    await Promise.all(report.warnings.map((event) => this.#o.recorder.record(profile, event)));
  }
}
