// Deletes what kfx once made for a Profile and no longer wants: objects in the kfx-managed
// caches that the Profile owns but no reconciler asked for this time (a label was removed, a
// policy was dropped from the config). An ownerReference is no proof of who made an object:
// whoever can write in a namespace can point an object there at any Profile (a tenant at another
// of its Profiles, to have that one's clean-up delete the `default-deny` of the first). So a
// Profile deletes only in its own namespace, cluster-scoped objects (which no tenant writes),
// and in namespaces that belong to no Profile (a template's fixed target such as `argocd`);
// what lies in another Profile's namespace is that Profile's to keep or to take back.
// Deletion is conditional on the uid, so an object re-created in the meantime is never hit.
import { isConflict, isNotFound, type KubeClient, type KubeObject } from '@kfx/kube-runtime/client';
import { profileNamespace, RECONCILER_LABEL, type Profile } from '../profile.js';
import type { DesiredSet } from './desired-objects.js';
import { belongsToProfile } from './namespace-claim.js';
import { objectId, type OwnedKind, type OwnedKinds } from './owned-kinds.js';

export interface Pruned {
  kind: OwnedKind;
  object: KubeObject;
}

/** The namespaces' cache (namespace-claim.ts reads the same). */
export interface NamespaceLookup {
  get(name: string): KubeObject | undefined;
}

/** Whether the Profile's clean-up may delete an object where it lies. */
function prunableWhere(
  profile: Profile,
  kind: OwnedKind,
  object: KubeObject,
  namespaces: NamespaceLookup,
): boolean {
  if (!kind.ref.namespaced) return true;
  const namespace = object.metadata?.namespace ?? '';
  if (namespace === profileNamespace(profile)) return true;
  return !belongsToProfile(namespaces.get(namespace));
}

export function obsoleteObjects(
  profile: Profile,
  desired: DesiredSet,
  kinds: OwnedKinds,
  namespaces: NamespaceLookup,
): Pruned[] {
  const uid = profile.metadata?.uid;
  if (!uid) return [];
  const obsolete: Pruned[] = [];
  for (const kind of kinds.byKey.values()) {
    for (const object of kind.informer.store.byIndex('owner', uid)) {
      if (object.metadata?.deletionTimestamp) continue;
      if (desired.ids.has(objectId(kind.ref, object))) continue;
      const reconciler = object.metadata?.labels?.[RECONCILER_LABEL];
      if (reconciler !== undefined && desired.keep.has(reconciler)) continue;
      if (!prunableWhere(profile, kind, object, namespaces)) continue;
      obsolete.push({ kind, object });
    }
  }
  return obsolete;
}

/** Deletes one obsolete object; false when it was already gone. */
export async function deleteObsolete(
  client: KubeClient,
  { kind, object }: Pruned,
  signal: AbortSignal,
): Promise<boolean> {
  try {
    await client.delete(kind.ref, object.metadata?.name ?? '', {
      namespace: kind.ref.namespaced ? object.metadata?.namespace : undefined,
      preconditions: { uid: object.metadata?.uid ?? '' },
      signal,
    });
    return true;
  } catch (error) {
    // 404: already gone; 409: the uid changed, i.e. someone made a new one: leave it.
    if (isNotFound(error) || isConflict(error)) return false;
    throw error;
  }
}
