// Writes the desired objects with kube-runtime's applyObject, which skips the write when the
// cached live object already matches (a steady cluster costs no writes). An object whose change
// the API refuses in place (an immutable field such as a RoleBinding's roleRef), or that is
// left over from an earlier Profile of the same name, is deleted and created again. What exists
// and is not this Profile's is taken over only inside the Profile's own namespace, and only for
// reconcilers that allow it: elsewhere (and for copies, which are `createOnly`) an object this
// Profile does not own (an ownerReference with its uid, which the controller kfx replaces also
// set) is left alone, even if it carries kfx's label, which anyone can write. An object that
// existed before kfx first applied it is told as adopted, not created. The Profile's namespace
// gets its default labels only where it lacks them (namespace-labels.ts). Why a Secret was
// written is told by field, never by value.
import {
  isAlreadyExists,
  KubeApiError,
  type KubeClient,
  type KubeObject,
  isNotFound,
  getOrUndefined,
} from '@kfx/kube-runtime/client';
import { applyObject, objectKey } from '@kfx/kube-runtime/controller';
import { type Logger, messageOf } from '@kfx/kube-runtime/serving';
import { isProfileNamespace, profileNamespace, type Profile } from '../profile.js';
import { describeObject } from './describe.js';
import type { DesiredObject } from './desired-objects.js';
import { NamespaceApply } from './namespace-apply.js';
import type { LabelChange } from './namespace-labels.js';

export interface Change {
  object: DesiredObject;
  /** `adopted`: it existed (someone else made it) before kfx first applied it. */
  action: 'created' | 'updated' | 'recreated' | 'adopted';
  /** Why it was written: the first difference found, for the event. */
  reason: string;
  /** The resourceVersion the write produced, to recognise its own watch event. */
  resourceVersion: string | undefined;
  /** Labels of the Profile's namespace that kfx enforces and put back. */
  reverted?: LabelChange[] | undefined;
}

export interface ApplyContext {
  client: KubeClient;
  fieldManager: string;
  signal: AbortSignal;
  logger: Logger;
  /** The Profile's namespace exists and is its own or adopted; false: it is to be created. */
  namespaceHeld: boolean;
  /** The Profile's namespace as the namespace cache holds it (the labels kfx decides by). */
  liveNamespace?: KubeObject | undefined;
}

const rv = (object: KubeObject) => object.metadata?.resourceVersion;

/** Secrets: whatever tells why a write happens names fields, never their values. */
const holdsSecrets = (desired: DesiredObject) =>
  desired.kind.ref.group === '' && desired.kind.ref.resource === 'secrets';

/** `data.password: want "…", have "…"` becomes `data.password: differs (…)`. */
const withoutValues = (reason: string): string =>
  reason.replace(/: want [\s\S]*$/, ': differs (Secret values are not shown)');

/**
 * The logger given to applyObject, which logs why it writes at debug level: for a Secret, the
 * reason (which quotes values) is replaced.
 */
function applyLogger(context: ApplyContext, desired: DesiredObject): Logger {
  if (!holdsSecrets(desired)) return context.logger;
  return context.logger.child(
    {},
    { redact: { paths: ['reason'], censor: '(not shown: the object is a Secret)' } },
  );
}

const refusedInPlace = (error: unknown): boolean =>
  error instanceof KubeApiError &&
  error.status === 422 &&
  /immutable|cannot change/i.test(error.message);

const profileOwners = (live: KubeObject) =>
  (live.metadata?.ownerReferences ?? []).filter((o) => o.kind === 'Profile');

/** Owned by an earlier Profile of the same name that is being garbage-collected. */
function staleOwner(live: KubeObject, profile: Profile): boolean {
  const uid = profile.metadata?.uid;
  return profileOwners(live).some((o) => o.name === profile.metadata?.name && o.uid !== uid);
}

/** Owned by this very Profile (its uid), as what kfx makes for it is. */
const ownedByThis = (live: KubeObject, profile: Profile) =>
  profileOwners(live).some((o) => o.uid === profile.metadata?.uid);

/** The other Profile this kfx object belongs to, if it is not this Profile's. */
function otherOwner(live: KubeObject, profile: Profile): string | undefined {
  const owners = profileOwners(live);
  if (owners.length === 0 || owners.some((o) => o.name === profile.metadata?.name))
    return undefined;
  return owners.map((o) => o.name).join(', ');
}

/**
 * Whether applying may take over an object of that name that kfx did not make: inside the
 * Profile's own namespace yes (that is how a site moves from another controller), and the
 * namespace itself once it is held; anywhere else (a template naming another namespace, a
 * cluster-scoped object, a namespace still to be created) only creating is allowed.
 */
function mayTakeOver(context: ApplyContext, profile: Profile, desired: DesiredObject): boolean {
  if (desired.createOnly) return false;
  if (isProfileNamespace(profile, desired.object)) return context.namespaceHeld;
  return (
    desired.kind.ref.namespaced && desired.object.metadata?.namespace === profileNamespace(profile)
  );
}

const leftAlone = (profile: Profile, desired: DesiredObject) =>
  `${describeObject(desired.object)} already exists and kfx did not make it for Profile ${profile.metadata?.name ?? ''}: it is left alone`;

/**
 * Creates an object that must not exist yet; its fields are then applied as usual. One that
 * exists is taken over only when this Profile owns it (a controller made it for the Profile,
 * such as the controller kfx replaces) or the reconciler recognises it as its own (`adopts`);
 * anyone else's is left alone.
 */
async function createOnly(
  context: ApplyContext,
  profile: Profile,
  desired: DesiredObject,
  object: KubeObject,
): Promise<boolean> {
  const { ref } = desired.kind;
  const namespace = ref.namespaced ? desired.object.metadata?.namespace : undefined;
  try {
    await context.client.create(ref, object, {
      fieldManager: context.fieldManager,
      signal: context.signal,
    });
    return true;
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    const existing = await getOrUndefined(
      context.client,
      ref,
      desired.object.metadata?.name ?? '',
      { namespace, signal: context.signal },
    );
    if (existing && (ownedByThis(existing, profile) || desired.adopts?.(existing))) return false;
    throw new Error(leftAlone(profile, desired), { cause: error });
  }
}

/**
 * A create makes the field manager an `Update` owner of every field it set, beside the apply
 * that follows: a field later dropped from the desired state (a Pod Security label a new
 * configuration no longer sets) would stay, held by that entry. Keeping only the apply's entries
 * leaves it the one owner of what it sets, as if the object had been applied from the start.
 */
async function keepOnlyApplied(
  context: ApplyContext,
  desired: DesiredObject,
  applied: KubeObject,
): Promise<void> {
  const entries = applied.metadata?.managedFields ?? [];
  const kept = entries.filter(
    (e) => !(e.manager === context.fieldManager && e.operation === 'Update'),
  );
  if (kept.length === entries.length || kept.length === 0) return;
  const { ref } = desired.kind;
  // Best effort: an object changed meanwhile fails the test and keeps both entries.
  await context.client
    .patch(
      ref,
      desired.object.metadata?.name ?? '',
      [
        { op: 'test', path: '/metadata/resourceVersion', value: applied.metadata?.resourceVersion },
        { op: 'replace', path: '/metadata/managedFields', value: kept },
      ],
      {
        namespace: ref.namespaced ? desired.object.metadata?.namespace : undefined,
        type: 'json',
        signal: context.signal,
      },
    )
    .catch((error: unknown) => {
      context.logger.debug({ err: error }, 'the create’s field entry stays');
    });
}

async function remove(
  context: ApplyContext,
  desired: DesiredObject,
  live: KubeObject,
): Promise<void> {
  const { ref } = desired.kind;
  await context.client
    .delete(ref, live.metadata?.name ?? '', {
      namespace: ref.namespaced ? live.metadata?.namespace : undefined,
      preconditions: { uid: live.metadata?.uid ?? '' },
      signal: context.signal,
    })
    .catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
}

/** Applies one object; returns what changed, or undefined when it already matched. */
export async function applyDesired(
  context: ApplyContext,
  profile: Profile,
  desired: DesiredObject,
): Promise<Change | undefined> {
  const { informer, ref } = desired.kind;
  const live = informer.store.get(objectKey(desired.object));
  const labels = desired.namespaceLabels
    ? new NamespaceApply(context, desired, desired.namespaceLabels)
    : undefined;
  const apply = async (force = true) => {
    const object = labels ? labels.object : desired.object;
    return applyObject(context.client, object, {
      fieldManager: context.fieldManager,
      cache: informer.store,
      ref,
      signal: context.signal,
      logger: applyLogger(context, desired),
      force,
    });
  };
  const recreate = async (reason: string): Promise<Change> => {
    if (live) await remove(context, desired, live);
    const { object } = await apply();
    return { object: desired, action: 'recreated', reason, resourceVersion: rv(object) };
  };
  // A namespace is never deleted to be made again: everything in it would go too.
  const recreatable = !isProfileNamespace(profile, desired.object);
  const takeOver = mayTakeOver(context, profile, desired);
  const other = live && otherOwner(live, profile);
  if (other) {
    // Elsewhere it may be another Profile's (two templates naming one object). In the
    // Profile's own namespace kfx makes nothing for another Profile: a tenant pointed it there,
    // so it is made again, as this Profile's (it cannot carry two controllers).
    if (!takeOver || !recreatable) {
      throw new Error(
        `${describeObject(desired.object)} belongs to Profile ${other}: it is left alone`,
      );
    }
    return recreate(`it named Profile ${other} as its owner, not ${profile.metadata?.name ?? ''}`);
  }
  if (live && recreatable && staleOwner(live, profile)) {
    return recreate('it belonged to an earlier Profile of that name');
  }
  if (live && !takeOver && !ownedByThis(live, profile)) {
    // kfx's label without this Profile's ownerReference: someone else's object.
    throw new Error(leftAlone(profile, desired));
  }
  const created =
    !live &&
    !takeOver &&
    (await createOnly(context, profile, desired, labels ? labels.object : desired.object));
  let result;
  try {
    // Defaults the namespace holds are asserted without force: a value someone changed since
    // the cache saw it is a conflict, read again, never overwritten.
    result = await apply(!labels?.assertsHeldDefaults);
  } catch (error) {
    if (labels && (await labels.refreshOnConflict(error))) {
      result = await apply();
    } else {
      if (!live || !recreatable || !refusedInPlace(error)) throw error;
      context.logger.info({ err: error }, 'the change cannot be made in place; recreating');
      return recreate(messageOf(error));
    }
  }
  if (created) await keepOnlyApplied(context, desired, result.object);
  const removed = labels ? await labels.removeLabels() : [];
  const reverted = labels?.reverted ?? [];
  if (!result.changed && removed.length === 0) return undefined;
  const why = result.changed
    ? (result.reason ?? 'it did not exist')
    : `label ${removed.join(', ')} removed`;
  const reason = holdsSecrets(desired) ? withoutValues(why) : why;
  return {
    object: desired,
    // `adopted`: never written by kfx before, only by someone else (applyObject reads what
    // kfx's cache of its labelled objects lacks). Made by createOnly just now: created.
    action: created ? 'created' : (result.action ?? 'updated'),
    reason,
    resourceVersion: rv(result.object),
    ...(reverted.length > 0 ? { reverted } : {}),
  };
}
