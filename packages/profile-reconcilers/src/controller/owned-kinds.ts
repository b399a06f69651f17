// One informer per kind of object the enabled reconcilers create, restricted to objects labelled
// `app.kubernetes.io/managed-by: kfx`. Anyone who can write such an object can put that label on
// it (a tenant in its own namespace, hundreds of them, a megabyte each), so the cache holds a
// skeleton of each (kube-runtime's appliedSkeleton: identity, kfx's labels, Profile owners and a
// digest of what kfx applied), never the content. Secrets are listed and watched as metadata
// only: their content never reaches the controller (a flood of tenant Secrets costs what their
// metadata weighs), and a Secret kfx writes is read once per version to be compared (kfx makes
// few: the copies). Kinds are keyed by group and resource, so that two apiVersions of one
// resource share one watch.
import {
  parseApiVersion,
  type KubeClient,
  type KubeObject,
  type ResourceRef,
} from '@kfx/kube-runtime/client';
import { createInformer, type Informer } from '@kfx/kube-runtime/informer';
import { appliedSkeleton } from '@kfx/kube-runtime/controller';
import { type Logger, messageOf } from '@kfx/kube-runtime/serving';
import type { Registry } from 'prom-client';
import { MANAGED_BY_LABEL, MANAGED_SELECTOR, RECONCILER_LABEL } from '../profile.js';
import type { EnabledReconciler } from '../reconciler.js';
import { PLUGIN_LABEL } from '../workload-identity.js';

export interface OwnedKind {
  ref: ResourceRef;
  informer: Informer<KubeObject>;
}

export const kindKey = (ref: { group: string; resource: string }): string =>
  `${ref.resource}.${ref.group}`;

/** Kinds cached as metadata only (kindKey): tenants' Secrets are never read. */
const METADATA_ONLY = new Set([kindKey({ group: '', resource: 'secrets' })]);

/** The resource behind `apiVersion`/`kind`, or an error naming the reconciler that needs it. */
export async function resolveKind(
  client: KubeClient,
  reconciler: string,
  verb: 'creates' | 'reads',
  apiVersion: string,
  kind: string,
): Promise<ResourceRef> {
  try {
    return await client.resolve(apiVersion, kind);
  } catch (error) {
    throw new Error(
      `reconciler ${reconciler} ${verb} ${kind} (${apiVersion}), which the API server does not serve: ${messageOf(error)}`,
      { cause: error },
    );
  }
}

/** For caches whose objects are never applied: their managedFields are dead weight. */
export const withoutManagedFields = <T extends KubeObject>(object: T): T => ({
  ...object,
  metadata: { ...object.metadata, managedFields: undefined },
});

/** Identifies one object across apiVersions: `resource.group/namespace/name`. */
export function objectId(ref: ResourceRef, object: KubeObject): string {
  const namespace = ref.namespaced ? (object.metadata?.namespace ?? '') : '';
  return `${kindKey(ref)}/${namespace}/${object.metadata?.name ?? ''}`;
}

export class OwnedKinds {
  /** kindKey → kind */
  readonly byKey = new Map<string, OwnedKind>();
  /** `apiVersion kind` → kind */
  readonly #byApiKind = new Map<string, OwnedKind>();

  static async resolve(
    client: KubeClient,
    reconcilers: readonly EnabledReconciler[],
    options: { logger: Logger; registry: Registry; fieldManager: string },
  ): Promise<OwnedKinds> {
    const kinds = new OwnedKinds();
    // PLUGIN_LABEL: what a Profile's plugin made is revoked first when the Profile goes.
    const fields = {
      labels: [MANAGED_BY_LABEL, RECONCILER_LABEL, PLUGIN_LABEL],
      ownerKinds: ['Profile'],
    };
    const transform = appliedSkeleton(options.fieldManager, fields);
    const metadataTransform = appliedSkeleton(options.fieldManager, {
      ...fields,
      metadataOnly: true,
    });
    for (const reconciler of reconcilers) {
      for (const { apiVersion, kind } of reconciler.kinds) {
        const apiKind = `${apiVersion} ${kind}`;
        if (kinds.#byApiKind.has(apiKind)) continue;
        const ref = await resolveKind(client, reconciler.name, 'creates', apiVersion, kind);
        const key = kindKey(ref);
        let owned = kinds.byKey.get(key);
        if (!owned) {
          const metadataOnly = METADATA_ONLY.has(key);
          const informer = createInformer<KubeObject>(client, ref, {
            labelSelector: MANAGED_SELECTOR,
            metadataOnly,
            transform: metadataOnly ? metadataTransform : transform,
            // prune.ts finds a Profile's objects by owner; nothing asks by namespace.
            builtInIndexes: ['owner'],
            // The Profile informer's resync revisits every Profile; these need none of their own.
            resyncMs: 0,
            name: `${ref.resource}${ref.group ? `.${ref.group}` : ''} (kfx-managed)`,
            logger: options.logger,
            registry: options.registry,
          });
          owned = { ref, informer };
          kinds.byKey.set(key, owned);
        }
        kinds.#byApiKind.set(apiKind, owned);
      }
    }
    return kinds;
  }

  /** The kind of a desired object, which must be one a reconciler declared. */
  of(object: KubeObject): OwnedKind {
    const { apiVersion = '', kind = '' } = object;
    const owned = this.#byApiKind.get(`${apiVersion} ${kind}`);
    if (owned) return owned;
    const { group } = parseApiVersion(apiVersion);
    for (const candidate of this.byKey.values()) {
      if (candidate.ref.group === group && candidate.ref.kind === kind) return candidate;
    }
    throw new Error(`${kind} (${apiVersion}) is not among the kinds the reconcilers declared`);
  }

  get informers(): Informer<KubeObject>[] {
    return [...this.byKey.values()].map((k) => k.informer);
  }
}
