// Leader election on a coordination.k8s.io Lease, for hot standbys: every replica runs an
// elector; the holder renews the Lease every retry period, the others poll it and take over
// once it has not changed for a whole lease duration (measured on their own clock, so clock
// skew between nodes does not matter). Writes carry the resourceVersion read, so two candidates
// can never both win. A graceful stop releases the Lease, so a standby takes over at once.
import type { Gauge, Registry } from 'prom-client';
import { isAborted, sleep } from '../backoff.js';
import type { KubeClient } from '../client/client.js';
import { LeaseLock } from './lease.js';
import type { Logger } from '../logger.js';
import { gauge } from '../metrics.js';

export interface LeaderElectorOptions {
  client: KubeClient;
  /** Namespace and name of the Lease. */
  namespace: string;
  name: string;
  /** Unique per replica, e.g. the Pod name. */
  identity: string;
  /** How long a Lease stays valid without renewal. Default 15. */
  leaseDurationSeconds?: number | undefined;
  /** A leader that could not renew for this long steps down. Default 10. */
  renewDeadlineSeconds?: number | undefined;
  /** Time between renewals and between a standby's polls. Default 2. */
  retryPeriodSeconds?: number | undefined;
  logger?: Logger | undefined;
  /** For the `kfx_leader_election_leader` gauge. Default: the client's registry. */
  registry?: Registry | undefined;
}

export interface LeaderCallbacks {
  /**
   * Called on becoming leader; `signal` aborts when leadership ends. Return (or resolve) once
   * the work has stopped after the abort. A rejection makes the elector step down.
   */
  onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /** Called after leadership ended (lost, or stopped). */
  onStoppedLeading?: (() => void) | undefined;
  /** Called when another holder is first seen. */
  onNewLeader?: ((identity: string) => void) | undefined;
}

export class LeaderElector {
  readonly #o: {
    client: KubeClient;
    namespace: string;
    name: string;
    identity: string;
    leaseDurationSeconds: number;
    renewDeadlineSeconds: number;
    retryPeriodSeconds: number;
  };
  readonly #logger: Logger;
  readonly #gauge: Gauge<'lease'>;
  readonly #lock: LeaseLock;
  #callbacks: LeaderCallbacks | undefined;
  #leading = false;
  /** When the last successful acquire or renew was started (a lower bound of its write time). */
  #renewedAt = 0;
  #stop = new AbortController();
  #running: Promise<void> | undefined;

  constructor(options: LeaderElectorOptions) {
    const o = {
      client: options.client,
      namespace: options.namespace,
      name: options.name,
      identity: options.identity,
      leaseDurationSeconds: options.leaseDurationSeconds ?? 15,
      renewDeadlineSeconds: options.renewDeadlineSeconds ?? 10,
      retryPeriodSeconds: options.retryPeriodSeconds ?? 2,
    };
    for (const key of ['namespace', 'name', 'identity'] as const) {
      if (!o[key]) throw new Error(`LeaderElector: options.${key} is required`);
    }
    if (!(o.renewDeadlineSeconds < o.leaseDurationSeconds)) {
      throw new Error('LeaderElector: renewDeadlineSeconds must be less than leaseDurationSeconds');
    }
    if (!(o.retryPeriodSeconds > 0 && o.retryPeriodSeconds < o.renewDeadlineSeconds)) {
      throw new Error(
        'LeaderElector: retryPeriodSeconds must be above 0 and below renewDeadlineSeconds',
      );
    }
    this.#o = o;
    this.#logger = (options.logger ?? options.client.logger).child({
      lease: `${o.namespace}/${o.name}`,
      identity: o.identity,
    });
    this.#gauge = gauge(
      options.registry ?? options.client.registry,
      'kfx_leader_election_leader',
      '1 while this replica holds the Lease',
      ['lease'],
    );
    this.#gauge.set({ lease: this.#leaseLabel }, 0);
    this.#lock = new LeaseLock({
      client: o.client,
      namespace: o.namespace,
      name: o.name,
      identity: o.identity,
      logger: this.#logger,
      onHolder: (holder) => {
        this.#newHolder(holder);
      },
    });
  }

  /**
   * True while this replica holds the Lease and its last renewal is younger than the renew
   * deadline: judged by the clock, so a busy event loop cannot keep a stale leader leading.
   */
  isLeader(): boolean {
    return this.#leading && Date.now() - this.#renewedAt < this.#o.renewDeadlineSeconds * 1000;
  }

  /** The holder last seen on the Lease (this replica's identity while leading). */
  get leader(): string | undefined {
    return this.#lock.holder;
  }

  /** Campaigns, leads, and campaigns again after a loss, until `stop()` or `signal` aborts. */
  run(callbacks: LeaderCallbacks, signal?: AbortSignal): Promise<void> {
    if (this.#running) throw new Error('LeaderElector.run() was already called');
    signal?.addEventListener(
      'abort',
      () => {
        this.#stop.abort(signal.reason);
      },
      { once: true },
    );
    this.#callbacks = callbacks;
    this.#running = this.#loop(callbacks, this.#stop.signal);
    return this.#running;
  }

  /** Stops leading (waiting for the work to end), releases the Lease and stops campaigning. */
  async stop(): Promise<void> {
    this.#stop.abort(new Error('leader elector stopped'));
    await this.#running;
  }

  get #leaseLabel(): string {
    return `${this.#o.namespace}/${this.#o.name}`;
  }

  async #loop(callbacks: LeaderCallbacks, stop: AbortSignal): Promise<void> {
    const retryMs = this.#o.retryPeriodSeconds * 1000;
    while (!stop.aborted) {
      const attemptAt = Date.now();
      if (!(await this.#tryAcquireOrRenew(stop, this.#o.renewDeadlineSeconds * 1000))) {
        // Jitter keeps standbys from polling in step.
        await sleep(retryMs * (1 + Math.random() * 0.2), stop).catch(() => undefined);
        continue;
      }
      this.#renewedAt = attemptAt;
      await this.#lead(callbacks, stop);
    }
  }

  async #lead(callbacks: LeaderCallbacks, stop: AbortSignal): Promise<void> {
    this.#setLeading(true);
    this.#logger.info('became leader');
    const term = new AbortController();
    const failed = new AbortController();
    const work = (async () => callbacks.onStartedLeading(term.signal))().catch((error: unknown) => {
      this.#logger.error({ err: error }, 'onStartedLeading failed; stepping down');
      failed.abort();
    });
    const renewDeadlineMs = this.#o.renewDeadlineSeconds * 1000;
    const retryMs = this.#o.retryPeriodSeconds * 1000;
    const until = AbortSignal.any([stop, failed.signal]);
    while (!until.aborted) {
      // Every retry period, or sooner when less than one would be left before the deadline (a
      // slow acquisition, failed renewals), but never more often than a quarter of one.
      const beforeDeadline = this.#renewedAt + renewDeadlineMs - retryMs - Date.now();
      const wait = Math.min(retryMs, Math.max(retryMs / 4, beforeDeadline));
      await sleep(wait, until).catch(() => undefined);
      if (isAborted(until)) break;
      // Every attempt ends by the renew deadline counted from the last renewal, not from its own
      // start: a hung request must not stretch leadership past the moment standbys may take over.
      const attemptAt = Date.now();
      const left = this.#renewedAt + renewDeadlineMs - attemptAt;
      if (left > 0 && (await this.#tryAcquireOrRenew(until, left))) this.#renewedAt = attemptAt;
      else if (this.#lock.holder !== this.#o.identity || !this.isLeader()) break;
    }
    term.abort(new Error('leadership ended'));
    await work;
    const graceful = stop.aborted || failed.signal.aborted;
    if (graceful)
      await this.#lock.release(AbortSignal.timeout(this.#o.renewDeadlineSeconds * 1000));
    this.#setLeading(false);
    this.#logger.info(graceful ? 'released leadership' : 'lost leadership');
    try {
      callbacks.onStoppedLeading?.();
    } catch (error) {
      this.#logger.error({ err: error }, 'onStoppedLeading threw');
    }
    // After a failed term, give the others one retry period to take over.
    if (failed.signal.aborted && !stop.aborted) {
      await sleep(this.#o.retryPeriodSeconds * 1000, stop).catch(() => undefined);
    }
  }

  #setLeading(leading: boolean): void {
    this.#leading = leading;
    this.#gauge.set({ lease: this.#leaseLabel }, leading ? 1 : 0);
  }

  #tryAcquireOrRenew(stop: AbortSignal, timeoutMs: number): Promise<boolean> {
    const timeout = AbortSignal.timeout(timeoutMs);
    return this.#lock.tryAcquireOrRenew(
      this.#o.leaseDurationSeconds,
      AbortSignal.any([stop, timeout]),
    );
  }

  #newHolder(holder: string | undefined): void {
    if (holder === undefined || holder === this.#o.identity) return;
    this.#logger.info({ leader: holder }, 'new leader');
    try {
      this.#callbacks?.onNewLeader?.(holder);
    } catch (error) {
      this.#logger.error({ err: error }, 'onNewLeader threw');
    }
  }
}
