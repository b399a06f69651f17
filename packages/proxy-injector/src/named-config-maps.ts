// A watched cache of the ConfigMaps of one name in every namespace, each read once per change
// into what admission needs, so that admission only does a map lookup: the per-namespace
// overrides and the proxy CA bundles are both kept this way. With `dropData`, the informer keeps
// only each object's identity (a CA bundle is ~200 KiB; a copy per namespace would add up).
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { Plain } from '@kfx/admission-core';
import { resources, type KubeClient } from '@kfx/kube-runtime/client';
import {
  createInformer,
  informersReady,
  metadataSkeleton,
  type Informer,
} from '@kfx/kube-runtime/informer';
import type { Logger } from '@kfx/kube-runtime/serving';

type ConfigMap = Plain<V1ConfigMap>;

export interface NamedConfigMapsOptions<T> {
  /** What admission needs from one ConfigMap. */
  read: (configMap: ConfigMap) => T;
  /** Cache only the objects' identity (the value `read` made is kept). */
  dropData?: boolean;
  logger: Logger;
}

export class NamedConfigMaps<T> {
  readonly informer: Informer<ConfigMap>;
  readonly #byNamespace = new Map<string, T>();

  constructor(client: KubeClient, name: string, options: NamedConfigMapsOptions<T>) {
    const { read } = options;
    // With dropData, `read` runs in the transform, on the whole object, before it is dropped.
    const made = new WeakMap<object, T>();
    const skeleton = metadataSkeleton();
    this.informer = createInformer<ConfigMap>(client, resources.configMaps, {
      fieldSelector: `metadata.name=${name}`,
      name: `configmaps?name=${name}`,
      logger: options.logger,
      ...(options.dropData
        ? {
            transform: (configMap: ConfigMap) => {
              const kept = skeleton(configMap) as ConfigMap;
              made.set(kept, read(configMap));
              return kept;
            },
          }
        : {}),
    });
    const store = (configMap: ConfigMap) => {
      this.#byNamespace.set(
        configMap.metadata?.namespace ?? '',
        made.get(configMap) ?? read(configMap),
      );
    };
    this.informer.on('add', store);
    this.informer.on('update', (configMap, old) => {
      if (configMap !== old) store(configMap); // a resync re-emits the same object
    });
    this.informer.on('delete', (configMap) => {
      this.#byNamespace.delete(configMap.metadata?.namespace ?? '');
    });
  }

  get(namespace: string): T | undefined {
    return this.#byNamespace.get(namespace);
  }

  /** Starts the watch; resolves once the first list is in the cache. */
  async start(): Promise<void> {
    this.informer.start();
    await this.informer.waitForSync();
  }

  readiness(): { ok: boolean; reasons: string[] } {
    return informersReady([this.informer]);
  }

  stop(): Promise<void> {
    return this.informer.stop();
  }
}
