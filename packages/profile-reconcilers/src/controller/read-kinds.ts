// The caches of what reconcilers read but never write (contributors' RoleBindings, the Secrets
// to copy): one informer per kind, namespace and transform declared, holding every object (not
// only kfx's) as the reader's transform cuts it (by default without managedFields; what tenants
// write, to what `desired` reads). `desired` gets a read-only view of them, so it stays a pure
// function and costs no API request; triggers.ts reconciles the Profiles whose reads changed.
import { type KubeClient, type KubeObject, type ResourceRef } from '@kfx/kube-runtime/client';
import { createInformer, type Informer } from '@kfx/kube-runtime/informer';
import { type Logger } from '@kfx/kube-runtime/serving';
import type { Registry } from 'prom-client';
import type { EnabledReconciler, ReadRef, ReadView } from '../reconciler.js';
import { kindKey, resolveKind, withoutManagedFields } from './owned-kinds.js';

export interface ReadKind {
  ref: ResourceRef;
  /** The one namespace watched; undefined: every namespace (reads of Profile namespaces). */
  namespace: string | undefined;
  informer: Informer<KubeObject>;
  /** Whether a change to this object concerns any reader. */
  concerns: (object: KubeObject) => boolean;
  /** What the cache keeps of each object. */
  transform: Transform;
  resourceKey: string;
}

const readKey = (apiVersion: string, kind: string, namespace: string | undefined) =>
  `${apiVersion} ${kind} ${namespace ?? '*'}`;

type Transform = (object: KubeObject) => KubeObject;

export class ReadKinds {
  /** kindKey + namespace → cache */
  readonly #byResource = new Map<string, ReadKind>();
  /** `apiVersion kind namespace` → cache */
  readonly #byRef = new Map<string, ReadKind>();

  static async resolve(
    client: KubeClient,
    reconcilers: readonly EnabledReconciler[],
    options: { logger: Logger; registry: Registry },
  ): Promise<ReadKinds> {
    const reads = new ReadKinds();
    /** resource key → what each reader is concerned with (undefined: everything). */
    const concerns = new Map<string, (((object: KubeObject) => boolean) | undefined)[]>();
    /** Transforms by identity: readers share a cache only when they cut objects alike. */
    const transforms = new Map<Transform, number>();
    const transformId = (transform: Transform) => {
      if (!transforms.has(transform)) transforms.set(transform, transforms.size);
      return transforms.get(transform) ?? 0;
    };
    for (const reconciler of reconcilers) {
      for (const read of reconciler.reads ?? []) {
        const { apiVersion, kind, namespace, concerns: concern } = read;
        const transform = read.transform ?? withoutManagedFields;
        const key = readKey(apiVersion, kind, namespace);
        const known = reads.#byRef.get(key);
        if (known && known.transform !== transform) {
          throw new Error(
            `reconciler ${reconciler.name} reads ${kind} (${apiVersion})${namespace ? ` in ${namespace}` : ''} with a transform of its own, which another reader's cache does not keep`,
          );
        }
        if (known) {
          concerns.get(known.resourceKey)?.push(concern);
          continue;
        }
        const ref = await resolveKind(client, reconciler.name, 'reads', apiVersion, kind);
        const resourceKey = `${kindKey(ref)} ${namespace ?? '*'} ${transformId(transform)}`;
        const readers = concerns.get(resourceKey) ?? [];
        readers.push(concern);
        concerns.set(resourceKey, readers);
        let cache = reads.#byResource.get(resourceKey);
        if (!cache) {
          const where = namespace === undefined ? '' : ` in ${namespace}`;
          cache = {
            ref,
            namespace,
            resourceKey,
            transform,
            informer: createInformer<KubeObject>(client, ref, {
              namespace: ref.namespaced ? namespace : undefined,
              resyncMs: 0,
              transform,
              // The view lists them by namespace; nothing asks by owner.
              builtInIndexes: ['namespace'],
              name: `${ref.resource}${ref.group ? `.${ref.group}` : ''}${where} (read)`,
              logger: options.logger,
              registry: options.registry,
            }),
            concerns: (object) => readers.some((concerned) => concerned?.(object) ?? true),
          };
          reads.#byResource.set(resourceKey, cache);
        }
        reads.#byRef.set(key, cache);
      }
    }
    return reads;
  }

  get kinds(): ReadKind[] {
    return [...this.#byResource.values()];
  }

  get informers(): Informer<KubeObject>[] {
    return this.kinds.map((k) => k.informer);
  }

  /** The read-only view `desired` gets. */
  readonly view: ReadView = {
    list: (ref: ReadRef, namespace: string) => {
      const cache = this.#byRef.get(readKey(ref.apiVersion, ref.kind, ref.namespace));
      if (!cache) {
        throw new Error(
          `${ref.kind} (${ref.apiVersion})${ref.namespace ? ` in ${ref.namespace}` : ''} is not among the kinds the reconciler declared it reads`,
        );
      }
      return cache.informer.store.byIndex('namespace', namespace);
    },
  };
}
