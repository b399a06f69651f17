// Server-side apply that does not write when there is nothing to change. A controller resyncs
// every object periodically; without the skip, a steady cluster would take one write per
// object per resync. The write is skipped only when the live object (from an informer's cache
// when given, else a GET) holds every desired value AND the field manager owns exactly the
// desired fields, so that fields dropped from the desired state are still removed. A cache of
// skeletons (applied-digest.ts) answers by digest; when the digests differ, the object is read
// and judged exactly. A write tells whether it created the object or adopted one someone else
// had made: a cache may hold only some objects (or not yet the last write), so an object it
// lacks is read, and the live object's managers decide.
import type { KubeClient } from '../client/client.js';
import { getOrUndefined } from '../client/get-or-undefined.js';
import type { Logger } from '../logger.js';
import { desiredDigest, isAppliedSkeleton, type AppliedSkeleton } from './applied-digest.js';
import { applyEntry, desiredLeaves, ownedLeaves, ownershipDifference } from './managed-fields.js';
import { counter } from '../metrics.js';
import { objectKey } from '../object-key.js';
import type { KubeObject, ResourceRef } from '../client/resources.js';
import { comparableFields, subsetDifference } from './semantic-equal.js';

export interface ApplyOptions {
  /** The field manager that owns what this object sets, e.g. `kfx-controller`. */
  fieldManager: string;
  /** Take fields over from other managers instead of failing with 409. Default true. */
  force?: boolean | undefined;
  /**
   * Where to read the live object; default: a GET. An informer's store costs no request; an
   * object it lacks is read with a GET (the store may hold only some objects, or not yet the
   * last write).
   */
  cache?: { get(key: string): KubeObject | undefined } | undefined;
  /** Skip discovery when the caller knows the resource. */
  ref?: ResourceRef | undefined;
  dryRun?: boolean | undefined;
  signal?: AbortSignal | undefined;
  logger?: Logger | undefined;
}

export interface ApplyResult<T> {
  /** True when the object was created or modified; false when skipped or a no-op. */
  changed: boolean;
  /**
   * The live object: the server's answer, or the cached/read one when the write was skipped
   * (from a cache of skeletons, the skeleton).
   */
  object: T;
  /** Why it was written: the first difference found, or `it did not exist`. */
  reason?: string | undefined;
  /**
   * What the write did: `created`; `adopted`, an object that existed but was never written by
   * this field manager (it carried only other managers' fields): made by someone else, now
   * taken over; `updated`. Undefined when nothing was written.
   */
  action?: 'created' | 'adopted' | 'updated' | undefined;
  /** For `adopted`: the field managers that had written the object before. */
  earlierManagers?: string[] | undefined;
}

export async function applyObject<T extends KubeObject>(
  client: KubeClient,
  desired: T,
  options: ApplyOptions,
): Promise<ApplyResult<T>> {
  const { apiVersion, kind } = desired;
  const name = desired.metadata?.name;
  const what = `${kind ?? '(no kind)'} ${objectKeyOrName(desired)}`;
  if (!apiVersion) throw new Error(`applyObject ${what}: the object has no apiVersion`);
  if (!kind) throw new Error(`applyObject ${what}: the object has no kind`);
  if (!name) throw new Error(`applyObject ${kind}: the object has no metadata.name`);
  if (!options.fieldManager)
    throw new Error(`applyObject ${what}: options.fieldManager is required`);
  const ref = options.ref ?? (await client.resolve(apiVersion, kind));
  if (ref.namespaced && !desired.metadata?.namespace) {
    throw new Error(`applyObject ${what}: ${kind} is namespaced but metadata.namespace is empty`);
  }
  const logger = (options.logger ?? client.logger).child({
    kind,
    namespace: desired.metadata?.namespace,
    name,
  });
  const applies = counter(client.registry, 'kfx_kube_apply_total', 'applyObject calls by result', [
    'kind',
    'result',
  ]);

  const live = await readLive<T>(client, ref, desired, options);
  // Written before by this manager (applied, or created with its name): an update; by others
  // only: taken over. A skeleton is only ever of an object this manager applied.
  const ours =
    live !== undefined &&
    (isAppliedSkeleton(live) ||
      (live.metadata?.managedFields ?? []).some((entry) => entry.manager === options.fieldManager));
  let reason = 'it did not exist';
  if (live) {
    const why = await writeReason(client, ref, desired, live, options);
    if (why === undefined) {
      applies.inc({ kind, result: 'skipped' });
      return { changed: false, object: live };
    }
    reason = why;
    logger.debug({ reason }, 'applying');
  }
  const object = await client.apply<T>(ref, desired, {
    fieldManager: options.fieldManager,
    force: options.force ?? true,
    dryRun: options.dryRun,
    signal: options.signal,
  });
  const changed = live?.metadata?.resourceVersion !== object.metadata?.resourceVersion;
  applies.inc({ kind, result: changed ? 'changed' : 'unchanged' });
  if (!changed) return { changed, object, reason };
  const earlier = live && !ours ? otherManagers(live, options.fieldManager) : [];
  const action = !live ? 'created' : ours ? 'updated' : 'adopted';
  logger.info(action === 'adopted' ? { earlierManagers: earlier } : {}, action);
  return {
    changed,
    object,
    reason:
      action !== 'adopted'
        ? reason
        : earlier.length > 0
          ? `it existed, written by ${earlier.join(', ')}`
          : 'it existed',
    action,
    ...(action === 'adopted' ? { earlierManagers: earlier } : {}),
  };
}

/** The field managers other than `fieldManager` whose entries an object carries. */
function otherManagers(object: KubeObject, fieldManager: string): string[] {
  const managers = (object.metadata?.managedFields ?? []).map((entry) => entry.manager ?? '');
  return [...new Set(managers.filter((m) => m !== '' && m !== fieldManager))];
}

/** Skeletons whose object was read and found to need no write for a desired digest. */
const verified = new WeakMap<AppliedSkeleton, string>();

/** whyWrite against a cached object, which may be a skeleton (see applied-digest.ts). */
async function writeReason(
  client: KubeClient,
  ref: ResourceRef,
  desired: KubeObject,
  cached: KubeObject,
  options: ApplyOptions,
): Promise<string | undefined> {
  if (!isAppliedSkeleton(cached)) return whyWrite(desired, cached, options.fieldManager);
  if (cached.kind !== undefined && cached.kind !== desired.kind) return `kind is ${cached.kind}`;
  if (cached.metadata?.deletionTimestamp) return 'the live object is being deleted';
  const want = desiredDigest(desired);
  if (cached.appliedDigest === want || verified.get(cached) === want) return undefined;
  // A real difference, or one the digest cannot see past (a default the server filled in):
  // read the object and judge exactly.
  const live = await getOrUndefined(client, ref, desired.metadata?.name ?? '', {
    namespace: ref.namespaced ? desired.metadata?.namespace : undefined,
    signal: options.signal,
  });
  if (!live) return 'it did not exist';
  const reason = whyWrite(desired, live, options.fieldManager);
  if (reason === undefined && live.metadata?.resourceVersion === cached.metadata?.resourceVersion) {
    verified.set(cached, want);
  }
  return reason;
}

/** Why the live object does not already match, or undefined when a write can be skipped. */
export function whyWrite(
  desired: KubeObject,
  live: KubeObject,
  fieldManager: string,
): string | undefined {
  if (live.kind !== undefined && live.kind !== desired.kind) return `kind is ${live.kind}`;
  if (live.metadata?.deletionTimestamp) return 'the live object is being deleted';
  const fields = comparableFields(desired as Record<string, unknown>);
  const difference = subsetDifference(fields, comparableFields(live as Record<string, unknown>));
  if (difference) return difference;
  const entry = applyEntry(live.metadata?.managedFields, fieldManager);
  if (!entry) return `${fieldManager} has never applied this object`;
  return ownershipDifference(ownedLeaves(entry.fieldsV1), desiredLeaves(fields));
}

async function readLive<T extends KubeObject>(
  client: KubeClient,
  ref: ResourceRef,
  desired: T,
  options: ApplyOptions,
): Promise<T | undefined> {
  const cached = options.cache?.get(objectKey(desired)) as T | undefined;
  if (cached) return cached;
  return getOrUndefined<T>(client, ref, desired.metadata?.name ?? '', {
    namespace: ref.namespaced ? desired.metadata?.namespace : undefined,
    signal: options.signal,
  });
}

function objectKeyOrName(object: KubeObject): string {
  try {
    return objectKey(object);
  } catch {
    return '(no name)';
  }
}
