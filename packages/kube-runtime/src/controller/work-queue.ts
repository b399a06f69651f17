// A keyed work queue for reconcilers (client-go's semantics): a key is queued at most once, is
// processed by at most one worker at a time, and a key added while it is processed runs once
// more afterwards. Failures come back with per-key exponential backoff; success resets it.
import { Registry, type Counter, type Gauge, type Histogram } from 'prom-client';
import { KeyedBackoff, type BackoffOptions } from '../backoff.js';
import { defaultLogger, type Logger } from '../logger.js';
import { counter, gauge, histogram } from '../metrics.js';
import { parseObjectKey } from '../object-key.js';

export interface WorkQueueOptions {
  /** Label of the queue's metrics and logs, e.g. `resourcequotas`. */
  name: string;
  /** Keys processed at the same time (never the same key twice). Default 1. */
  workers?: number | undefined;
  /** Retry delays after failures. Default 5 ms doubling to 60 s. */
  backoff?: BackoffOptions | undefined;
  /** Default: a new Registry (see `queue.registry`). */
  registry?: Registry | undefined;
  logger?: Logger | undefined;
}

export interface ReconcileContext {
  /** Aborted by `shutdown({ drain: false })`. */
  signal: AbortSignal;
  /** Carries the queue name, the key and, for object keys, namespace and name. */
  logger: Logger;
  /** Failures of this key since its last success. */
  failures: number;
}

// `void` lets a reconciler that needs no requeue simply return nothing.
// eslint-disable-next-line @typescript-eslint/no-invalid-void-type
export type ReconcileResult = { requeueAfterMs?: number | undefined } | undefined | void;

export type Reconciler<K> = (
  key: K,
  context: ReconcileContext,
) => ReconcileResult | Promise<ReconcileResult>;

export class WorkQueue<K = string> {
  readonly name: string;
  readonly registry: Registry;
  readonly #workers: number;
  readonly #logger: Logger;
  readonly #backoff: KeyedBackoff<K>;
  #queue: K[] = [];
  #head = 0;
  /** Keys that need processing: queued, or added again while processing. */
  readonly #dirty = new Set<K>();
  readonly #processing = new Set<K>();
  readonly #timers = new Map<K, { due: number; timer: NodeJS.Timeout }>();
  #idle: (() => void)[] = [];
  #shuttingDown = false;
  #abort = new AbortController();
  #running: Promise<void> | undefined;
  readonly #depth: Gauge<'name'>;
  readonly #reconciles: Counter<'name' | 'result'>;
  readonly #duration: Histogram<'name'>;

  constructor(options: WorkQueueOptions) {
    if (!options.name) throw new Error('WorkQueue: options.name is required');
    const workers = options.workers ?? 1;
    if (!Number.isInteger(workers) || workers < 1) {
      throw new Error(
        `WorkQueue ${options.name}: workers must be a positive integer, got ${workers}`,
      );
    }
    this.name = options.name;
    this.#workers = workers;
    this.#backoff = new KeyedBackoff<K>(options.backoff ?? { baseMs: 5, maxMs: 60_000 });
    this.#logger = (options.logger ?? defaultLogger()).child({ queue: this.name });
    this.registry = options.registry ?? new Registry();
    this.#depth = gauge(
      this.registry,
      'kfx_controller_queue_depth',
      'Keys waiting in the work queue',
      ['name'],
    );
    this.#reconciles = counter(
      this.registry,
      'kfx_controller_reconcile_total',
      'Reconciles by result: success, error or requeue',
      ['name', 'result'],
    );
    this.#duration = histogram(
      this.registry,
      'kfx_controller_reconcile_duration_seconds',
      'Time spent in one reconcile',
      ['name'],
    );
    this.#depth.set({ name: this.name }, 0);
  }

  /** Keys waiting to be processed. */
  get length(): number {
    return this.#queue.length - this.#head;
  }

  get inFlight(): number {
    return this.#processing.size;
  }

  isShuttingDown(): boolean {
    return this.#shuttingDown;
  }

  add(key: K): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    if (this.#processing.has(key)) return;
    this.#queue.push(key);
    this.#depth.set({ name: this.name }, this.length);
    this.#idle.shift()?.();
  }

  /** Adds the key after `ms`; a key already due sooner keeps the earlier time. */
  addAfter(key: K, ms: number): void {
    if (this.#shuttingDown) return;
    if (!(ms > 0)) {
      this.add(key);
      return;
    }
    const due = Date.now() + ms;
    const pending = this.#timers.get(key);
    if (pending && pending.due <= due) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.#timers.delete(key);
      this.add(key);
    }, ms);
    this.#timers.set(key, { due, timer });
  }

  /** Adds the key after its backoff delay, counting a failure. */
  addRateLimited(key: K): void {
    this.addAfter(key, this.#backoff.next(key));
  }

  /** Resets the key's failure count. */
  forget(key: K): void {
    this.#backoff.forget(key);
  }

  /** Starts the workers; resolves once `shutdown()` has finished. */
  run(reconcile: Reconciler<K>): Promise<void> {
    if (this.#running) throw new Error(`WorkQueue ${this.name} is already running`);
    const workers = Array.from({ length: this.#workers }, () => this.#work(reconcile));
    this.#running = Promise.all(workers).then(() => undefined);
    return this.#running;
  }

  /**
   * Stops taking keys. With `drain` (default) the queued and in-flight keys are finished first;
   * without it queued keys are dropped and in-flight reconciles see their signal abort.
   */
  async shutdown(options: { drain?: boolean } = {}): Promise<void> {
    this.#shuttingDown = true;
    for (const { timer } of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    if (options.drain === false) {
      this.#queue = [];
      this.#head = 0;
      this.#dirty.clear();
      this.#abort.abort(new Error(`work queue ${this.name} shut down`));
    }
    for (const wake of this.#idle.splice(0)) wake();
    await this.#running;
    this.#depth.set({ name: this.name }, this.length);
  }

  async #work(reconcile: Reconciler<K>): Promise<void> {
    for (;;) {
      const key = await this.#next();
      if (key === undefined) return;
      await this.#process(key, reconcile);
    }
  }

  async #next(): Promise<K | undefined> {
    while (this.length === 0) {
      if (this.#shuttingDown) return undefined;
      await new Promise<void>((resolve) => this.#idle.push(resolve));
    }
    const key = this.#queue[this.#head] as K;
    this.#head++;
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    this.#depth.set({ name: this.name }, this.length);
    this.#processing.add(key);
    this.#dirty.delete(key);
    return key;
  }

  async #process(key: K, reconcile: Reconciler<K>): Promise<void> {
    const logger = this.#logger.child(keyBindings(key));
    const failures = this.#backoff.failures(key);
    const started = performance.now();
    let result: 'success' | 'error' | 'requeue' = 'success';
    try {
      const outcome = await reconcile(key, { signal: this.#abort.signal, logger, failures });
      this.#backoff.forget(key);
      const after = outcome?.requeueAfterMs;
      if (after !== undefined && after >= 0) {
        result = 'requeue';
        this.addAfter(key, after);
      }
    } catch (error) {
      result = 'error';
      const delay = this.#backoff.next(key);
      logger.error({ err: error, failures: failures + 1, retryInMs: delay }, 'reconcile failed');
      this.addAfter(key, delay);
    } finally {
      this.#reconciles.inc({ name: this.name, result });
      this.#duration.observe({ name: this.name }, (performance.now() - started) / 1000);
      this.#processing.delete(key);
      if (this.#dirty.has(key)) {
        this.#queue.push(key);
        this.#depth.set({ name: this.name }, this.length);
        this.#idle.shift()?.();
      }
    }
  }
}

function keyBindings(key: unknown): Record<string, string> {
  if (typeof key !== 'string') return { key: String(key) };
  try {
    const { namespace, name } = parseObjectKey(key);
    return namespace === undefined ? { key, name } : { key, namespace, name };
  } catch {
    return { key };
  }
}
