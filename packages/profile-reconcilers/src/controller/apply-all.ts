// Makes a Profile's objects match what the reconcilers want: cluster-scoped objects (its
// Namespace) first, since the rest live in them, then everything else (nothing when the
// namespace was to be created and could not be), then the obsolete objects deleted. At most
// APPLY_WIDTH requests of one Profile are in flight: a tenant whose Profile has thousands of
// objects (contributors' templates) holds that many of the API's connections, not all of them,
// so other Profiles' repairs are not queued behind it. Each failure is charged to the
// reconciler that wanted the object; the others go on.
import { inParallel } from '@kfx/kube-runtime/client';
import { messageOf } from '@kfx/kube-runtime/serving';
import {
  isProfileNamespace,
  profileNamespace,
  RECONCILER_LABEL,
  type Profile,
} from '../profile.js';
import { applyDesired, type ApplyContext, type Change } from './apply-desired.js';
import { describeObject } from './describe.js';
import type { DesiredObject, DesiredSet } from './desired-objects.js';
import type { OwnedKinds } from './owned-kinds.js';
import { deleteObsolete, obsoleteObjects, type NamespaceLookup, type Pruned } from './prune.js';

/** Requests of one Profile in flight at once. */
const APPLY_WIDTH = 8;

export interface Applied {
  changes: Change[];
  pruned: Pruned[];
}

export async function applyAll(
  context: ApplyContext,
  profile: Profile,
  desired: DesiredSet,
  kinds: OwnedKinds,
  /** Reconciler name → error; filled in here. */
  errors: Map<string, string>,
  /** The namespaces' cache: a Profile prunes nothing in another Profile's namespace. */
  namespaces: NamespaceLookup,
): Promise<Applied> {
  const applied: Applied = { changes: [], pruned: [] };
  const fail = (reconciler: string, what: string, error: unknown) => {
    if (context.signal.aborted) throw error;
    if (!errors.has(reconciler)) errors.set(reconciler, `${what}: ${messageOf(error)}`);
  };
  const apply = async (object: DesiredObject) => {
    try {
      const change = await applyDesired(context, profile, object);
      if (change) applied.changes.push(change);
    } catch (error) {
      fail(object.reconciler, describeObject(object.object), error);
    }
  };
  const wanted = desired.objects.filter((object) => !errors.has(object.reconciler));
  await inParallel(
    wanted.filter((o) => !o.kind.ref.namespaced),
    APPLY_WIDTH,
    apply,
  );
  const home = wanted.find((o) => isProfileNamespace(profile, o.object));
  if (!context.namespaceHeld && home && errors.has(home.reconciler)) {
    // Not created (most likely someone else's appeared meanwhile): nothing goes into it.
    for (const object of wanted) {
      if (object.kind.ref.namespaced && !errors.has(object.reconciler)) {
        errors.set(
          object.reconciler,
          `not applied: namespace ${profileNamespace(profile)} could not be created`,
        );
      }
    }
    return applied;
  }
  await inParallel(
    wanted.filter((o) => o.kind.ref.namespaced),
    APPLY_WIDTH,
    apply,
  );
  await inParallel(
    obsoleteObjects(profile, desired, kinds, namespaces),
    APPLY_WIDTH,
    async (obsolete) => {
      try {
        if (await deleteObsolete(context.client, obsolete, context.signal)) {
          applied.pruned.push(obsolete);
        }
      } catch (error) {
        const by = obsolete.object.metadata?.labels?.[RECONCILER_LABEL] ?? 'prune';
        fail(by, `deleting ${describeObject(obsolete.object)}`, error);
      }
    },
  );
  return applied;
}
