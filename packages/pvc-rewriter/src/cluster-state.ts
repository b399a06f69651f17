// What the rewriter knows about the cluster, from watched caches and never from a request per
// admission: which StorageClasses exist, and (only when a rule has a namespaceSelector) the
// labels of every namespace.
import type { V1Namespace, V1StorageClass } from '@kubernetes/client-node';
import type { Plain } from '@kfx/admission-core';
import { resources, type KubeClient } from '@kfx/kube-runtime/client';
import { createInformer, informersReady, type Informer } from '@kfx/kube-runtime/informer';
import type { Logger } from '@kfx/kube-runtime/serving';
import type { NamespaceLabels } from './rules.js';

type StorageClass = Plain<V1StorageClass>;
type Namespace = Plain<V1Namespace>;

export interface Readiness {
  ok: boolean;
  reasons: string[];
}

const DEFAULT_CLASS_ANNOTATIONS = [
  'storageclass.kubernetes.io/is-default-class',
  'storageclass.beta.kubernetes.io/is-default-class',
];

function isDefault(storageClass: StorageClass): boolean {
  const annotations = storageClass.metadata?.annotations ?? {};
  return DEFAULT_CLASS_ANNOTATIONS.some((key) => annotations[key] === 'true');
}

export class ClusterState {
  readonly storageClasses: Informer<StorageClass>;
  readonly namespaces: Informer<Namespace> | undefined;
  #defaults = new Set<string>();

  constructor(client: KubeClient, options: { watchNamespaces: boolean; logger: Logger }) {
    const { logger } = options;
    this.storageClasses = createInformer<StorageClass>(client, resources.storageClasses, {
      logger,
    });
    // Recomputed on change, so that an admission only reads a set.
    const refresh = () => {
      const defaults = this.storageClasses.store.list().filter(isDefault);
      this.#defaults = new Set(defaults.map((c) => c.metadata?.name ?? ''));
    };
    this.storageClasses.on('add', refresh);
    this.storageClasses.on('update', refresh);
    this.storageClasses.on('delete', refresh);
    this.namespaces = options.watchNamespaces
      ? createInformer<Namespace>(client, resources.namespaces, {
          logger,
          // Only the labels are read; a large cluster has many namespaces.
          transform: ({ metadata }) => ({
            metadata: {
              name: metadata?.name ?? '',
              resourceVersion: metadata?.resourceVersion ?? '',
              labels: metadata?.labels ?? {},
            },
          }),
        })
      : undefined;
  }

  /** undefined until the cache has synced: no warning is better than a wrong one. */
  storageClassExists(name: string): boolean | undefined {
    if (!this.storageClasses.hasSynced()) return undefined;
    return this.storageClasses.store.get(name) !== undefined;
  }

  /** The classes marked default; undefined until the cache has synced. */
  defaultStorageClasses(): ReadonlySet<string> | undefined {
    return this.storageClasses.hasSynced() ? this.#defaults : undefined;
  }

  namespaceLabels(name: string): NamespaceLabels {
    const informer = this.namespaces;
    if (informer === undefined) return { unknown: 'namespaces are not watched' };
    if (!informer.hasSynced()) return { unknown: 'the namespace cache has not synced yet' };
    const namespace = informer.store.get(name);
    if (namespace === undefined) return { unknown: `namespace ${name} is not in the cache yet` };
    return { labels: namespace.metadata?.labels ?? {} };
  }

  async start(): Promise<void> {
    this.storageClasses.start();
    this.namespaces?.start();
    await Promise.all([this.storageClasses.waitForSync(), this.namespaces?.waitForSync()]);
  }

  async stop(): Promise<void> {
    await Promise.all([this.storageClasses.stop(), this.namespaces?.stop()]);
  }

  readiness(): Readiness {
    return informersReady([this.storageClasses, this.namespaces]);
  }
}
