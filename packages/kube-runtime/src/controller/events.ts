// Kubernetes Events for what a person should see in `kubectl describe`. Repeats of the same
// event (same object, type, reason and message) bump `count` and `lastTimestamp` on one Event
// instead of creating a new one each time, as client-go's recorder does. Recording never
// throws: an event that cannot be written is logged, and the reconcile goes on.
import { hostname } from 'node:os';
import type { KubeClient } from '../client/client.js';
import { isNotFound } from '../client/errors.js';
import type { Logger } from '../logger.js';
import { resources, type KubeObject } from '../client/resources.js';

export interface EventRecorderOptions {
  client: KubeClient;
  /** Shown as the event's source, e.g. `kfx-controller`. */
  component: string;
  /** Which replica reported it. Default: the host name (the Pod name in a cluster). */
  instance?: string | undefined;
  logger?: Logger | undefined;
  /** Repeated events remembered for aggregation. Default 4096. */
  cacheSize?: number | undefined;
}

export interface EventInput {
  type: 'Normal' | 'Warning';
  /** UpperCamelCase, short, machine-readable: `QuotaApplied`. */
  reason: string;
  /** For people; cut at 1024 characters. */
  message: string;
}

interface Recorded {
  name: string;
  namespace: string;
  count: number;
}

const MAX_MESSAGE = 1024;

export class EventRecorder {
  readonly #client: KubeClient;
  readonly #component: string;
  readonly #instance: string;
  readonly #logger: Logger;
  readonly #cacheSize: number;
  readonly #recorded = new Map<string, Recorded>();
  /** Writes for one aggregation key run one after the other. */
  readonly #pending = new Map<string, Promise<void>>();

  constructor(options: EventRecorderOptions) {
    if (!options.component) throw new Error('EventRecorder: options.component is required');
    this.#client = options.client;
    this.#component = options.component;
    this.#instance = options.instance ?? hostname();
    this.#logger = (options.logger ?? options.client.logger).child({
      component: options.component,
    });
    this.#cacheSize = options.cacheSize ?? 4096;
  }

  /** Writes (or aggregates) an event about `object`. Resolves when written; never rejects. */
  record(object: KubeObject, event: EventInput): Promise<void> {
    const meta = object.metadata;
    const bindings = {
      namespace: meta?.namespace,
      name: meta?.name,
      kind: object.kind,
      reason: event.reason,
    };
    const type: string = event.type;
    if (!meta?.name || !object.kind || !event.reason || (type !== 'Normal' && type !== 'Warning')) {
      this.#logger.error(
        { ...bindings, type: event.type },
        'event not recorded: the object needs kind and metadata.name, the event a reason and type Normal or Warning',
      );
      return Promise.resolve();
    }
    const message =
      event.message.length > MAX_MESSAGE
        ? `${event.message.slice(0, MAX_MESSAGE - 3)}...`
        : event.message;
    const key = JSON.stringify([
      meta.namespace ?? '',
      object.kind,
      meta.name,
      meta.uid ?? '',
      event.type,
      event.reason,
      message,
    ]);
    const previous = this.#pending.get(key) ?? Promise.resolve();
    const next = previous
      .then(() => this.#write(key, object, { ...event, message }))
      .catch((error: unknown) => {
        this.#logger.warn({ ...bindings, err: error }, 'event not recorded');
      })
      .finally(() => {
        if (this.#pending.get(key) === next) this.#pending.delete(key);
      });
    this.#pending.set(key, next);
    return next;
  }

  async #write(key: string, object: KubeObject, event: EventInput): Promise<void> {
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const seen = this.#recorded.get(key);
    if (seen) {
      try {
        await this.#client.patch(
          resources.events,
          seen.name,
          { count: seen.count + 1, lastTimestamp: now },
          { namespace: seen.namespace },
        );
        seen.count++;
        // Re-insert: the map's order is the least-recently-used order.
        this.#recorded.delete(key);
        this.#recorded.set(key, seen);
        return;
      } catch (error) {
        // The event expired (events live an hour by default): start a new one.
        if (!isNotFound(error)) throw error;
        this.#recorded.delete(key);
      }
    }
    const meta = object.metadata ?? {};
    // Cluster-scoped objects have their events in `default`, as kubectl looks for them there.
    const namespace =
      meta.namespace === undefined || meta.namespace === '' ? 'default' : meta.namespace;
    const created = await this.#client.create(resources.events, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${meta.name ?? 'object'}.${uniqueSuffix()}`, namespace },
      involvedObject: {
        apiVersion: object.apiVersion,
        kind: object.kind,
        name: meta.name,
        namespace: meta.namespace,
        uid: meta.uid,
        resourceVersion: meta.resourceVersion,
      },
      type: event.type,
      reason: event.reason,
      message: event.message,
      source: { component: this.#component, host: this.#instance },
      reportingComponent: this.#component,
      reportingInstance: this.#instance,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    } as KubeObject);
    this.#recorded.set(key, { name: created.metadata?.name ?? '', namespace, count: 1 });
    if (this.#recorded.size > this.#cacheSize) {
      const oldest = this.#recorded.keys().next().value;
      if (oldest !== undefined) this.#recorded.delete(oldest);
    }
  }
}

/** Like client-go: the time in nanoseconds, in hex, unique enough within one object. */
function uniqueSuffix(): string {
  const nanos = BigInt(Date.now()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n);
  return nanos.toString(16);
}
