// Writes the desired objects with kube-runtime's applyObject, which skips the write when the
// cached live object already matches (a steady cluster costs no writes). An object whose change
// the API refuses in place (an immutable field such as a RoleBinding's roleRef), or that is
// left over from an earlier Profile of the same name, is deleted and created again.
import {
  applyObject,
  KubeApiError,
  objectKey,
  whyWrite,
  type KubeClient,
  type KubeObject,
  type Logger,
} from '@kfx/kube-runtime';
import type { Profile } from '../profile.js';
import type { DesiredObject } from './desired-objects.js';

export interface Change {
  object: DesiredObject;
  action: 'created' | 'updated' | 'recreated';
  /** Why it was written: the first difference found, for the event. */
  reason: string;
  /** The resourceVersion the write produced, to recognise its own watch event. */
  resourceVersion: string | undefined;
}

export interface ApplyContext {
  client: KubeClient;
  fieldManager: string;
  signal: AbortSignal;
  logger: Logger;
}

const rv = (object: KubeObject) => object.metadata?.resourceVersion;

const refusedInPlace = (error: unknown): boolean =>
  error instanceof KubeApiError &&
  error.status === 422 &&
  /immutable|cannot change/i.test(error.message);

/** Owned by an earlier Profile of the same name that is being garbage-collected. */
function staleOwner(live: KubeObject, profile: Profile): boolean {
  const uid = profile.metadata?.uid;
  return (live.metadata?.ownerReferences ?? []).some(
    (o) => o.kind === 'Profile' && o.name === profile.metadata?.name && o.uid !== uid,
  );
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
      if (!(error instanceof KubeApiError && error.status === 404)) throw error;
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
  const apply = () =>
    applyObject(context.client, desired.object, {
      fieldManager: context.fieldManager,
      cache: informer.store,
      ref,
      signal: context.signal,
      logger: context.logger,
    });
  const recreate = async (reason: string): Promise<Change> => {
    if (live) await remove(context, desired, live);
    const { object } = await apply();
    return { object: desired, action: 'recreated', reason, resourceVersion: rv(object) };
  };
  if (live && staleOwner(live, profile)) {
    return recreate('it belonged to an earlier Profile of that name');
  }
  const reason = live ? whyWrite(desired.object, live, context.fieldManager) : 'it did not exist';
  if (reason === undefined) return undefined;
  let result;
  try {
    result = await apply();
  } catch (error) {
    if (!live || !refusedInPlace(error)) throw error;
    context.logger.info({ err: error }, 'the change cannot be made in place; recreating');
    return recreate((error as Error).message);
  }
  if (!result.changed) return undefined;
  const action = live ? 'updated' : 'created';
  return { object: desired, action, reason, resourceVersion: rv(result.object) };
}
