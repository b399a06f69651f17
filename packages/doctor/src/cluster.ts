// What the checks read, each read once and shared: several checks look at the Profiles, the
// namespaces, the webhook configuration or the probe Pods. A read the cluster cannot answer
// because the API is not there (no Profile CRD, no cert-manager) reads as empty.
import {
  isNotFound,
  readServerVersion,
  resources,
  type KubeClient,
  type KubeObject,
  type ResourceRef,
  type ServerVersion,
} from '@kfx/kube-runtime/client';
import type { Profile } from '@kfx/profile-reconcilers';
import { discoverNetwork, type DiscoveredNetwork } from '@kfx/proxy-injector';
import {
  REFS,
  type ConfigMap,
  type Deployment,
  type EndpointSlice,
  type LimitRange,
  type MutatingWebhookConfiguration,
  type Namespace,
  type ResourceQuota,
  type RoleBinding,
  type StorageClass,
} from './objects.js';

export interface ClusterOptions {
  /** The doctor's clock. */
  now: Date;
  signal?: AbortSignal | undefined;
  /** Requests at once (probe Pods, per-object reads). */
  concurrency: number;
}

/** A missing API (404 on the list) reads as no objects; `missing` remembers which. */
async function listOrNone<T extends KubeObject>(
  client: KubeClient,
  ref: ResourceRef,
  missing: Set<string>,
  signal: AbortSignal | undefined,
): Promise<T[]> {
  try {
    return (await client.list<T>(ref, signal ? { signal } : {})).items;
  } catch (error) {
    if (!isNotFound(error)) throw error;
    missing.add(ref.resource);
    return [];
  }
}

export class Cluster {
  readonly client: KubeClient;
  readonly now: Date;
  readonly signal: AbortSignal | undefined;
  readonly concurrency: number;
  /** Resources whose API the server does not serve (e.g. `profiles`, `certificates`). */
  readonly missingApis = new Set<string>();
  readonly #memo = new Map<string, Promise<unknown>>();

  constructor(client: KubeClient, options: ClusterOptions) {
    this.client = client;
    this.now = options.now;
    this.signal = options.signal;
    this.concurrency = options.concurrency;
  }

  /** `read` once per key; every caller gets the same promise. */
  memo<T>(key: string, read: () => Promise<T>): Promise<T> {
    let promise = this.#memo.get(key) as Promise<T> | undefined;
    if (!promise) {
      promise = read();
      // A failure is reported by the check that awaits it; unawaited, it must not crash.
      promise.catch(() => undefined);
      this.#memo.set(key, promise);
    }
    return promise;
  }

  #list<T extends KubeObject>(ref: ResourceRef): Promise<T[]> {
    return this.memo(`list:${ref.group}/${ref.resource}`, () =>
      listOrNone<T>(this.client, ref, this.missingApis, this.signal),
    );
  }

  version(): Promise<ServerVersion> {
    return this.memo('version', () => readServerVersion(this.client, this.signal));
  }

  profiles(): Promise<Profile[]> {
    return this.#list<Profile>(REFS.profiles);
  }

  async namespaces(): Promise<Map<string, Namespace>> {
    return this.memo('namespaces', async () => {
      const items = await this.#list<Namespace>(resources.namespaces);
      return new Map(items.map((namespace) => [namespace.metadata?.name ?? '', namespace]));
    });
  }

  webhookConfigurations(): Promise<MutatingWebhookConfiguration[]> {
    return this.#list<MutatingWebhookConfiguration>(resources.mutatingWebhookConfigurations);
  }

  endpointSlices(): Promise<EndpointSlice[]> {
    return this.#list<EndpointSlice>(REFS.endpointSlices);
  }

  deployments(): Promise<Deployment[]> {
    return this.#list<Deployment>(resources.deployments);
  }

  roleBindings(): Promise<RoleBinding[]> {
    return this.#list<RoleBinding>(resources.roleBindings);
  }

  resourceQuotas(): Promise<ResourceQuota[]> {
    return this.#list<ResourceQuota>(resources.resourceQuotas);
  }

  limitRanges(): Promise<LimitRange[]> {
    return this.#list<LimitRange>(resources.limitRanges);
  }

  storageClasses(): Promise<StorageClass[]> {
    return this.#list<StorageClass>(resources.storageClasses);
  }

  list<T extends KubeObject>(ref: ResourceRef): Promise<T[]> {
    return this.#list<T>(ref);
  }

  /** The Nodes, ServiceCIDRs and kubernetes Service, as the webhook's NO_PROXY discovery reads them. */
  network(): Promise<DiscoveredNetwork> {
    return this.memo('network', () => discoverNetwork(this.client));
  }

  /** A ConfigMap, or undefined when it does not exist. */
  configMap(namespace: string, name: string): Promise<ConfigMap | undefined> {
    return this.memo(`configmap:${namespace}/${name}`, async () => {
      try {
        return await this.client.get<ConfigMap>(resources.configMaps, name, {
          namespace,
          ...(this.signal ? { signal: this.signal } : {}),
        });
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    });
  }

  /** Objects of a namespaced kind, by namespace. */
  async byNamespace<T extends KubeObject>(items: Promise<T[]>): Promise<Map<string, T[]>> {
    const map = new Map<string, T[]>();
    for (const item of await items) {
      const namespace = item.metadata?.namespace ?? '';
      const list = map.get(namespace);
      if (list) list.push(item);
      else map.set(namespace, [item]);
    }
    return map;
  }
}
