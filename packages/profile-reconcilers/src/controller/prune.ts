// Deletes what kfx once made for a Profile and no longer wants: objects in the kfx-managed
// caches that the Profile owns but no reconciler asked for this time (a label was removed, a
// policy was dropped from the config). Deletion is conditional on the uid, so an object
// re-created in the meantime is never hit.
import { isConflict, isNotFound, type KubeClient, type KubeObject } from '@kfx/kube-runtime';
import { RECONCILER_LABEL, type Profile } from '../profile.js';
import type { DesiredSet } from './desired-objects.js';
import { objectId, type OwnedKind, type OwnedKinds } from './owned-kinds.js';

export interface Pruned {
  kind: OwnedKind;
  object: KubeObject;
}

export function obsoleteObjects(
  profile: Profile,
  desired: DesiredSet,
  kinds: OwnedKinds,
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
