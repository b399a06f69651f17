// Runs every enabled reconciler on one Profile and gathers what they want: the objects, stamped
// with kfx's ownership marks and keyed by identity, the problems, and which reconcilers could not
// compute everything (whose old objects must then be kept, not pruned).
import type { KubeObject } from '@kfx/kube-runtime/client';
import { messageOf } from '@kfx/kube-runtime/exit';
import { isProfileNamespace, stampOwnership, type Profile } from '../profile.js';
import { EMPTY_VIEW, type EnabledReconciler, type Problem, type ReadView } from '../reconciler.js';
import type { NamespaceLabelPlan } from './namespace-labels.js';
import { objectId, type OwnedKind, type OwnedKinds } from './owned-kinds.js';

export interface DesiredObject {
  id: string;
  reconciler: string;
  kind: OwnedKind;
  object: KubeObject;
  /** Only ever created: one kfx did not make is left alone (the reconciler's `createOnly`). */
  createOnly: boolean;
  /** Whether an existing object of the name is taken over anyway (the reconciler's `adopts`). */
  adopts: ((existing: KubeObject) => boolean) | undefined;
  /** For the Profile's namespace: labels set as defaults, removed, enforced (namespace-labels.ts). */
  namespaceLabels?: NamespaceLabelPlan | undefined;
}

export interface DesiredSet {
  objects: DesiredObject[];
  ids: Set<string>;
  problems: (Problem & { reconciler: string })[];
  /** Reconciler name → why it computed nothing (it threw). */
  errors: Map<string, string>;
  /** Reconcilers whose earlier objects must not be pruned this time. */
  keep: Set<string>;
  /** Reconciler name → the required cluster objects its objects rely on (required-objects.ts). */
  requires?: Map<string, string[]> | undefined;
}

export function desiredObjects(
  profile: Profile,
  reconcilers: readonly EnabledReconciler[],
  kinds: OwnedKinds,
  options: {
    /** The Profile's namespace existed before it (adopted): it gets no ownerReference. */
    adopted?: boolean | undefined;
    /** The caches of what the reconcilers read. */
    read?: ReadView | undefined;
  } = {},
): DesiredSet {
  const { adopted = false, read = EMPTY_VIEW } = options;
  const set: DesiredSet = {
    objects: [],
    ids: new Set(),
    problems: [],
    errors: new Map(),
    keep: new Set(),
    requires: new Map(),
  };
  const owners = new Map<string, string>();
  for (const reconciler of reconcilers) {
    try {
      const desired = reconciler.desired(profile, read);
      for (const problem of desired.problems)
        set.problems.push({ ...problem, reconciler: reconciler.name });
      if (desired.incomplete) set.keep.add(reconciler.name);
      if (desired.requires?.length) set.requires?.set(reconciler.name, desired.requires);
      for (const raw of desired.objects) {
        const kind = kinds.of(raw);
        const owned = !(adopted && isProfileNamespace(profile, raw));
        const object = stampOwnership(raw, profile, reconciler.name, owned);
        if (!kind.ref.namespaced && object.metadata) delete object.metadata.namespace;
        const id = objectId(kind.ref, object);
        const first = owners.get(id);
        if (first !== undefined) {
          set.problems.push({
            reconciler: reconciler.name,
            message: `${raw.kind ?? ''} ${object.metadata?.name ?? ''} is also made by ${first}; ${first}'s is kept`,
          });
          continue;
        }
        owners.set(id, reconciler.name);
        set.ids.add(id);
        set.objects.push({
          id,
          reconciler: reconciler.name,
          kind,
          object,
          createOnly: reconciler.createOnly ?? false,
          adopts:
            reconciler.adopts && ((existing) => reconciler.adopts?.(existing, object) ?? false),
          ...(desired.namespaceLabels && isProfileNamespace(profile, raw)
            ? { namespaceLabels: desired.namespaceLabels }
            : {}),
        });
      }
    } catch (error) {
      // A reconciler bug must not stop the others (nor the controller).
      set.errors.set(reconciler.name, messageOf(error));
      set.keep.add(reconciler.name);
    }
  }
  return set;
}
