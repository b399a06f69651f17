// The watched cache of per-namespace overrides: one informer on the ConfigMaps with the
// configured name, in every namespace, parsed once per change so that admission only does a map
// lookup. A changed ConfigMap applies to the next Pod, with no restart.
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { Plain } from '@kfx/admission-core';
import {
  createInformer,
  resources,
  type Informer,
  type KubeClient,
  type Logger,
} from '@kfx/kube-runtime';
import { parseNamespaceOverride, type NamespaceOverride } from './namespace-override.js';

type ConfigMap = Plain<V1ConfigMap>;

export class NamespaceOverrides {
  readonly informer: Informer<ConfigMap>;
  readonly #byNamespace = new Map<string, NamespaceOverride>();

  constructor(client: KubeClient, configMapName: string, logger: Logger) {
    this.informer = createInformer<ConfigMap>(client, resources.configMaps, {
      fieldSelector: `metadata.name=${configMapName}`,
      name: `configmaps?name=${configMapName}`,
      logger,
    });
    const store = (configMap: ConfigMap) => {
      const override = parseNamespaceOverride(configMap);
      this.#byNamespace.set(configMap.metadata?.namespace ?? '', override);
      for (const problem of override.problems) logger.warn({ problem }, 'proxy override ignored');
    };
    this.informer.on('add', store);
    this.informer.on('update', (configMap, old) => {
      if (configMap !== old) store(configMap); // a resync re-emits the same object
    });
    this.informer.on('delete', (configMap) => {
      this.#byNamespace.delete(configMap.metadata?.namespace ?? '');
    });
  }

  get(namespace: string): NamespaceOverride | undefined {
    return this.#byNamespace.get(namespace);
  }

  /** Starts the watch; resolves once the first list is in the cache. */
  async start(): Promise<void> {
    this.informer.start();
    await this.informer.waitForSync();
  }

  /** informersReady() from kube-runtime, which only takes untyped informers. */
  readiness(): { ok: boolean; reasons: string[] } {
    const { name, synced, healthy, lastError } = this.informer.status();
    if (!synced) return { ok: false, reasons: [`informer ${name} has not synced`] };
    if (!healthy) {
      const why = lastError ? `: ${lastError}` : '';
      return { ok: false, reasons: [`informer ${name} is not watching${why}`] };
    }
    return { ok: true, reasons: [] };
  }

  stop(): Promise<void> {
    return this.informer.stop();
  }
}
