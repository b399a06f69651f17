// A list-then-watch cache of one kind of object. It lists, then watches from the list's
// resourceVersion (with bookmarks and a randomised server timeout so that many clients do not
// reconnect in step); it lists again only on 410 Gone, reconnects with capped backoff on any
// other failure, waits as long as a 429 asks, restarts a watch that went silent, and re-emits
// every cached object on resync so controllers repair drift without asking the API.
import type { Registry } from 'prom-client';
import { backoffDelay, isAborted, sleep, type BackoffOptions } from '../backoff.js';
import type { KubeClient } from '../client/client.js';
import { isGone, isTooManyRequests, isUnauthorized, type KubeApiError } from '../client/errors.js';
import { HandlerSet, type InformerEvent, type InformerHandlers } from './informer-handlers.js';
import { informerMetrics, type InformerMetrics } from './informer-metrics.js';
import type { Logger } from '../logger.js';
import { objectKey } from '../object-key.js';
import { WatchInactive, watchOnce } from './informer-watch.js';
import type { KubeObject, ResourceRef } from '../client/resources.js';
import { asKindOf, METADATA_ACCEPT } from '../client/partial-metadata.js';
import { Store, type BuiltInIndex, type IndexFunc, type ReadonlyStore } from './store.js';
import type { Selectors } from '../client/verbs.js';
import { messageOf } from '../message-of.js';

export interface InformerOptions<T> extends Selectors {
  /** Re-emit `update` for every cached object this often; 0 turns it off. Default 10 min. */
  resyncMs?: number | undefined;
  /** Extra indexes beside the built-in `namespace` and `owner` (owner uid). */
  indexers?: Record<string, IndexFunc<T>> | undefined;
  /** The built-in indexes kept (each costs memory per object). Default both. */
  builtInIndexes?: readonly BuiltInIndex[] | undefined;
  /** Restart a watch that brought no event or bookmark for this long. Default 3 min. */
  inactivityTimeoutMs?: number | undefined;
  /** Reconnect backoff. Default 500 ms doubling to 30 s, ±20 % jitter. */
  backoff?: BackoffOptions | undefined;
  /**
   * Applied to every object before it is cached (e.g. drop fields a controller never reads to
   * save memory). Keep `metadata.managedFields` if the store is given to `applyObject`.
   */
  transform?: ((object: T) => T) | undefined;
  /**
   * List and watch only each object's metadata (client/partial-metadata.ts): the content of the
   * objects (a Secret's data) is never sent, so whoever writes them cannot make the cache read
   * megabytes. The objects keep their apiVersion and kind. Default false.
   */
  metadataOnly?: boolean | undefined;
  /** Name in logs, metrics and readiness reasons. Default: resource[/namespace][?selectors]. */
  name?: string | undefined;
  logger?: Logger | undefined;
  /** Default: the client's registry. */
  registry?: Registry | undefined;
}

export interface InformerStatus {
  name: string;
  synced: boolean;
  healthy: boolean;
  resourceVersion: string | undefined;
  lastError: string | undefined;
}

export function createInformer<T extends KubeObject>(
  client: KubeClient,
  ref: ResourceRef,
  options: InformerOptions<T> = {},
): Informer<T> {
  return new Informer<T>(client, ref, options);
}

export class Informer<T extends KubeObject> {
  readonly name: string;
  readonly #store: Store<T>;
  readonly #handlers: HandlerSet<T>;
  readonly #logger: Logger;
  readonly #metrics: InformerMetrics;
  #resourceVersion: string | undefined;
  #synced = false;
  #healthy = false;
  #lastError: string | undefined;
  #syncWaiters = new Set<{ resolve: () => void; reject: (error: unknown) => void }>();
  #abort: AbortController | undefined;
  #running: Promise<void> | undefined;
  #resyncTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: KubeClient,
    readonly ref: ResourceRef,
    private readonly options: InformerOptions<T> = {},
  ) {
    this.name = options.name ?? defaultName(ref, options);
    this.#logger = (options.logger ?? client.logger).child({ informer: this.name });
    this.#handlers = new HandlerSet<T>(this.#logger);
    this.#store = new Store<T>(
      options.indexers ?? {},
      (index, key, error) => {
        this.#logger.error({ err: error, index, key }, 'index function threw');
      },
      options.builtInIndexes,
    );
    this.#metrics = informerMetrics(options.registry ?? client.registry, this.name);
  }

  get store(): ReadonlyStore<T> {
    return this.#store;
  }

  /**
   * Subscribes to events; returns the unsubscribe function. A handler added after the first
   * sync first gets an `add` for every cached object, as if it had been there from the start.
   */
  on<E extends InformerEvent>(event: E, handler: InformerHandlers<T>[E]): () => void {
    const off = this.#handlers.on(event, handler);
    if (event === 'add' && this.#synced) {
      for (const object of this.#store.list()) (handler as InformerHandlers<T>['add'])(object);
    }
    return off;
  }

  start(): void {
    if (this.#running) return;
    this.#abort = new AbortController();
    const signal = this.#abort.signal;
    this.#running = this.#run(signal);
    const resyncMs = this.options.resyncMs ?? 600_000;
    if (resyncMs > 0) {
      this.#resyncTimer = setInterval(() => {
        this.#resync();
      }, resyncMs);
    }
  }

  /** Ends the watch; resolves once the loop has stopped. */
  async stop(): Promise<void> {
    clearInterval(this.#resyncTimer);
    this.#abort?.abort(new Error(`informer ${this.name} stopped`));
    await this.#running;
    this.#running = undefined;
    this.#healthy = false;
    for (const waiter of this.#syncWaiters)
      waiter.reject(new Error(`informer ${this.name} stopped before it synced`));
    this.#syncWaiters.clear();
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  /** True while the watch is established (or being re-established after a clean end). */
  isHealthy(): boolean {
    return this.#healthy;
  }

  status(): InformerStatus {
    return {
      name: this.name,
      synced: this.#synced,
      healthy: this.#healthy,
      resourceVersion: this.#resourceVersion,
      lastError: this.#lastError,
    };
  }

  /** Resolves once the first list is in the cache. */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject,
      };
      const onAbort = () => {
        this.#syncWaiters.delete(waiter);
        reject(signal?.reason as Error);
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#syncWaiters.add(waiter);
    });
  }

  async #run(signal: AbortSignal): Promise<void> {
    let failures = 0;
    const backoff = this.options.backoff ?? { baseMs: 500, maxMs: 30_000, jitter: 0.2 };
    while (!signal.aborted) {
      try {
        if (this.#resourceVersion === undefined) await this.#list(signal);
        const clean = await this.#watch(signal);
        // A watch the server ended at once, without events, is a failure in disguise.
        if (clean) failures = 0;
        else await sleep(backoffDelay(failures++, backoff), signal);
      } catch (error) {
        if (isAborted(signal)) break;
        this.#lastError = messageOf(error);
        if (!this.#synced && isUnauthorized(error)) this.#refuseStart(error);
        if (isGone(error)) {
          this.#logger.info(
            { resourceVersion: this.#resourceVersion },
            'resourceVersion expired, listing again',
          );
          this.#resourceVersion = undefined;
          this.#metrics.restarts.inc({ informer: this.name, reason: 'gone' });
          continue;
        }
        const inactive = error instanceof WatchInactive;
        this.#healthy = inactive && this.#healthy;
        this.#metrics.restarts.inc({
          informer: this.name,
          reason: inactive ? 'inactive' : 'error',
        });
        const wait =
          isTooManyRequests(error) && (error as KubeApiError).retryAfterMs !== undefined
            ? ((error as KubeApiError).retryAfterMs ?? 0)
            : inactive
              ? 0
              : backoffDelay(failures++, backoff);
        this.#logger.warn({ err: error, waitMs: wait }, 'list/watch failed, retrying');
        await sleep(wait, signal).catch(() => undefined);
      }
    }
  }

  /**
   * Missing RBAC or refused credentials do not mend by waiting: whoever waits for the first sync
   * is told at once, naming the request, instead of waiting forever (the informer retries on, so
   * a permission granted later still brings it up).
   */
  #refuseStart(error: unknown): void {
    const message = messageOf(error);
    for (const waiter of this.#syncWaiters) {
      waiter.reject(new Error(`informer ${this.name} cannot sync: ${message}`, { cause: error }));
    }
    this.#syncWaiters.clear();
  }

  async #list(signal: AbortSignal): Promise<void> {
    const seen = new Set<string>();
    // Each object is transformed as it is read: the cache never holds a page as the server sent it.
    const list = await this.client.eachItem<T>(
      this.ref,
      { ...this.#selectors(), metadataOnly: this.options.metadataOnly, signal },
      (raw) => {
        const object = this.#transform(raw);
        const key = objectKey(object);
        seen.add(key);
        const old = this.#store.set(object);
        if (!old) this.#handlers.emitAdd(object);
        else if (old.metadata?.resourceVersion !== object.metadata?.resourceVersion) {
          this.#handlers.emitUpdate(object, old);
        }
      },
    );
    // Objects deleted while no watch was running.
    for (const key of this.#store.keys()) {
      if (seen.has(key)) continue;
      const old = this.#store.delete(key);
      if (old) this.#handlers.emitDelete(old);
    }
    this.#metrics.relists.inc({ informer: this.name });
    this.#metrics.objects.set({ informer: this.name }, this.#store.size);
    this.#resourceVersion = list.metadata.resourceVersion;
    if (!this.#synced) {
      this.#synced = true;
      for (const waiter of this.#syncWaiters) waiter.resolve();
      this.#syncWaiters.clear();
      this.#logger.info({ objects: this.#store.size }, 'synced');
    }
  }

  /** One watch until the server ends it; false when it ended at once without events. */
  #watch(signal: AbortSignal): Promise<boolean> {
    return watchOnce<T>({
      client: this.client,
      ref: this.ref,
      namespace: this.options.namespace,
      labelSelector: this.options.labelSelector,
      fieldSelector: this.options.fieldSelector,
      resourceVersion: this.#resourceVersion,
      accept: this.options.metadataOnly ? METADATA_ACCEPT : undefined,
      inactivityMs: this.options.inactivityTimeoutMs ?? 180_000,
      signal,
      onOpen: () => {
        this.#healthy = true;
        this.#lastError = undefined;
      },
      onEvent: (type, object) => {
        this.#apply(type, object);
      },
    });
  }

  #apply(type: string, raw: T): void {
    const resourceVersion = raw.metadata?.resourceVersion;
    if (type === 'BOOKMARK') {
      this.#resourceVersion = resourceVersion ?? this.#resourceVersion;
      return;
    }
    const object = this.#transform(this.options.metadataOnly ? asKindOf(this.ref, raw) : raw);
    this.#metrics.events.inc({ informer: this.name, type });
    if (type === 'DELETED') {
      // The event carries the final state, which is what a handler wants to see.
      this.#store.delete(objectKey(object));
      this.#handlers.emitDelete(object);
    } else {
      const old = this.#store.set(object);
      if (!old) this.#handlers.emitAdd(object);
      else this.#handlers.emitUpdate(object, old);
    }
    this.#metrics.objects.set({ informer: this.name }, this.#store.size);
    this.#resourceVersion = resourceVersion ?? this.#resourceVersion;
  }

  #resync(): void {
    if (!this.#synced) return;
    for (const object of this.#store.list()) this.#handlers.emitUpdate(object, object);
  }

  #transform(object: T): T {
    const transform = this.options.transform;
    if (!transform) return object;
    return transform(object);
  }

  #selectors() {
    const { namespace, labelSelector, fieldSelector } = this.options;
    return { namespace, labelSelector, fieldSelector };
  }
}

function defaultName(ref: ResourceRef, options: Selectors): string {
  const selectors = [
    options.labelSelector && `labelSelector=${options.labelSelector}`,
    options.fieldSelector && `fieldSelector=${options.fieldSelector}`,
  ].filter(Boolean);
  const scope = options.namespace ? `/${options.namespace}` : '';
  return `${ref.resource}${scope}${selectors.length > 0 ? `?${selectors.join('&')}` : ''}`;
}
