// Where the Pod a token is bound to runs, read with the exposer's own credentials and kept for a
// few seconds: the door asks for each request of a Pod-bound token, and a Pod deleted (or
// replaced by one of the same name) is refused within that time. At most `kept` Pods are
// remembered, the least recently used forgotten first.
import { isNotFound, resources, type KubeClient } from '@kfx/kube-runtime/client';
import type { V1Pod } from '@kubernetes/client-node';

export interface PodPlacement {
  uid: string;
  /** The node it was scheduled to; undefined while it waits for one. */
  nodeName: string | undefined;
  serviceAccount: string;
}

interface Entry {
  /** undefined: no such Pod. */
  placement: PodPlacement | undefined;
  at: number;
}

export class PodPlacements {
  readonly #client: KubeClient;
  readonly #ttlMs: number;
  readonly #kept: number;
  readonly #entries = new Map<string, Entry>();
  readonly #reading = new Map<string, Promise<PodPlacement | undefined>>();

  constructor(client: KubeClient, ttlMs = 3000, kept = 4096) {
    this.#client = client;
    this.#ttlMs = ttlMs;
    this.#kept = kept;
  }

  /** The Pod `namespace/name` as the apiserver has it now (within the cache's few seconds). */
  get(namespace: string, name: string): Promise<PodPlacement | undefined> {
    const key = `${namespace}/${name}`;
    const entry = this.#entries.get(key);
    if (entry !== undefined && Date.now() - entry.at < this.#ttlMs) {
      return Promise.resolve(entry.placement);
    }
    let reading = this.#reading.get(key);
    if (reading === undefined) {
      reading = this.#read(namespace, name).finally(() => this.#reading.delete(key));
      this.#reading.set(key, reading);
    }
    return reading;
  }

  async #read(namespace: string, name: string): Promise<PodPlacement | undefined> {
    let placement: PodPlacement | undefined;
    try {
      const pod = await this.#client.get<V1Pod>(resources.pods, name, { namespace });
      placement = {
        uid: pod.metadata?.uid ?? '',
        nodeName: pod.spec?.nodeName,
        serviceAccount: pod.spec?.serviceAccountName ?? 'default',
      };
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    const key = `${namespace}/${name}`;
    this.#entries.delete(key);
    this.#entries.set(key, { placement, at: Date.now() });
    if (this.#entries.size > this.#kept) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    return placement;
  }
}
