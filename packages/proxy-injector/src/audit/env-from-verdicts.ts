// The audit's verdict on Pods whose containers may take the proxy variables from envFrom
// ConfigMaps (state `env-from`): their keys decide. Read once per Pod, by a few workers of a
// work queue (a failed read is retried with backoff), and kept by uid until the Pod goes: the
// spec cannot change, and a Pod's many status updates must not read them again.
import type { V1ConfigMap } from '@kubernetes/client-node';
import {
  getOrUndefined,
  resources,
  type KubeClient,
  type KubeObject,
} from '@kfx/kube-runtime/client';
import { type Informer } from '@kfx/kube-runtime/informer';
import { objectKey, WorkQueue } from '@kfx/kube-runtime/controller';
import { type Logger } from '@kfx/kube-runtime/serving';
import type { Registry } from 'prom-client';
import { envFromLookup, type EnvFromKeys } from '../env-from.js';
import { carriedByConfigMaps, type ProxyFacts } from './injection-state.js';

/** A cached Pod: its identity, the annotations the verdict reads, and what its spec carries. */
export interface AuditedPod extends KubeObject {
  proxy: ProxyFacts;
}

/** Pods whose ConfigMaps are read at the same time, by default. */
const DEFAULT_CONFIG_MAP_READERS = 2;

export interface EnvFromVerdictsOptions {
  client: KubeClient;
  pods: Informer<AuditedPod>;
  /** 1 to 16. Default DEFAULT_CONFIG_MAP_READERS. */
  readers?: number | undefined;
  /** Called with the Pod once its verdict is known. */
  decided: (pod: AuditedPod) => void;
  logger: Logger;
  registry: Registry;
}

export class EnvFromVerdicts {
  readonly readers: number;
  readonly #options: EnvFromVerdictsOptions;
  readonly #queue: WorkQueue;
  /** By uid: whether the Pod's ConfigMaps give every bare container a proxy variable. */
  readonly #carried = new Map<string, boolean>();

  constructor(options: EnvFromVerdictsOptions) {
    const readers = options.readers ?? DEFAULT_CONFIG_MAP_READERS;
    if (!Number.isInteger(readers) || readers < 1 || readers > 16) {
      throw new RangeError(
        `proxy-injection audit: configMapReaders must be an integer from 1 to 16, got ${readers}`,
      );
    }
    this.readers = readers;
    this.#options = options;
    this.#queue = new WorkQueue({
      name: 'proxy-injection-audit-configmaps',
      workers: readers,
      logger: options.logger,
      registry: options.registry,
    });
  }

  start(): void {
    void this.#queue.run((key, { signal }) => this.#read(key, signal));
  }

  async stop(): Promise<void> {
    await this.#queue.shutdown({ drain: false });
  }

  /** Whether `pod`'s ConfigMaps carry the proxy variables; undefined (and queued) until read. */
  carried(pod: AuditedPod): boolean | undefined {
    const carried = this.#carried.get(pod.metadata?.uid ?? '');
    if (carried === undefined) this.#queue.add(objectKey(pod));
    return carried;
  }

  forget(pod: AuditedPod): void {
    this.#carried.delete(pod.metadata?.uid ?? '');
  }

  async #read(key: string, signal: AbortSignal): Promise<void> {
    const { pods, client } = this.#options;
    const pod = pods.store.get(key);
    const uid = pod?.metadata?.uid ?? '';
    if (!pod || this.#carried.has(uid)) return;
    const namespace = pod.metadata?.namespace ?? '';
    const names = new Set(
      pod.proxy.bare.flatMap((c) => c.configMaps.map((source) => source.configMapRef?.name ?? '')),
    );
    const read = new Map<string, EnvFromKeys>();
    for (const name of names) {
      const ref = resources.configMaps;
      const configMap = await getOrUndefined<V1ConfigMap>(client, ref, name, { namespace, signal });
      read.set(name, { keys: Object.keys(configMap?.data ?? {}) });
    }
    // Gone or replaced while the ConfigMaps were read: a successor is judged on its own.
    const now = pods.store.get(key);
    if (now?.metadata?.uid !== uid) return;
    this.#carried.set(uid, carriedByConfigMaps(pod.proxy, envFromLookup(read)));
    this.#options.decided(now);
  }
}
