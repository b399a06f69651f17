// Which informer events are worth a reconcile. The controller's own status writes, and the
// status churn of the objects it owns (a ResourceQuota's `used` moves with every Pod), change
// nothing a reconciler reads: skipping them keeps a busy cluster from reconciling in circles.
import type { KubeObject } from '@kfx/kube-runtime/client';
import type { Profile } from '../profile.js';

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A resync (same object), or a change a reconciler could read. */
export function profileChanged(profile: Profile, old: Profile): boolean {
  if (profile === old) return true;
  const a = profile.metadata ?? {};
  const b = old.metadata ?? {};
  return (
    a.uid !== b.uid ||
    a.generation !== b.generation ||
    Boolean(a.deletionTimestamp) !== Boolean(b.deletionTimestamp) ||
    // What holds a Profile being deleted is in its condition.
    !sameJson(a.finalizers, b.finalizers) ||
    !sameJson(a.labels, b.labels) ||
    !sameJson(a.annotations, b.annotations) ||
    // A condition someone else removed or edited is rewritten.
    !sameJson(profile.status?.conditions, old.status?.conditions)
  );
}

/** Everything but status, resourceVersion and the status entries of managedFields. */
function comparable(object: KubeObject): unknown {
  const rest: Record<string, unknown> = { ...object, status: undefined };
  const metadata = { ...object.metadata, resourceVersion: undefined };
  metadata.managedFields = metadata.managedFields?.filter((f) => f.subresource !== 'status');
  return { ...rest, metadata };
}

export function ownedChanged(object: KubeObject, old: KubeObject): boolean {
  return object !== old && !sameJson(comparable(object), comparable(old));
}
