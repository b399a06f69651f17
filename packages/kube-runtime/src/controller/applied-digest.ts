// A cache of the objects a controller applies need not hold them. What decides whether an apply
// can be skipped (apply.ts: the live object holds every desired value, and the field manager owns
// exactly the desired fields) depends on the live object only through the fields that manager
// owns and their values; a digest of those is enough to say "nothing to do". The digest of a
// desired object is made the same way, so a steady cluster costs no request at all, while the
// cache keeps a few hundred bytes per object however large someone made it. When the digests
// differ (a real change, or a default the server filled in inside a list) the caller reads the
// object and decides exactly, and remembers an exact "no write needed" for that version.
import { createHash } from 'node:crypto';
import type { KubeObject, OwnerReference } from '../client/resources.js';
import { intern } from '../informer/intern.js';
import { metadataSkeleton, type SkeletonFields } from '../informer/skeleton.js';
import { parseQuantity } from '../quantity.js';
import { applyEntry, ownedLeaves } from './managed-fields.js';
import {
  comparableFields,
  isPlainObject,
  isQuantityPath,
  isScalarQuantity,
} from './semantic-equal.js';

/** What a cache made by `appliedSkeleton` holds. */
export interface AppliedSkeleton extends KubeObject {
  /**
   * Digest of the fields the field manager owns, with their values; null: it never applied, or
   * the cache holds metadata only and cannot see them.
   */
  appliedDigest: string | null;
  /**
   * In a metadata-only cache, the version of the content it cannot see: every write to the
   * object is a change (one to its data shows nowhere else).
   */
  contentVersion?: string | undefined;
}

type Path = readonly string[];

/** Owner references a skeleton keeps at most: more is no object a controller made. */
const MAX_OWNERS = 16;
/**
 * The longest owner apiVersion and name (an object name) and uid (a UUID is 36 characters) a
 * skeleton keeps: the API server checks none of them, and a reference longer than these names
 * no real owner. So a skeleton stays under 11 KiB however its object's owners were written.
 */
const MAX_OWNER_NAME = 253;
const MAX_OWNER_UID = 64;

export interface AppliedSkeletonFields extends Omit<SkeletonFields, 'ownerReferences'> {
  /** Keep the owner references of these kinds (at most 16). Default none. */
  ownerKinds?: readonly string[] | undefined;
  /**
   * The informer lists and watches metadata only (InformerOptions.metadataOnly): what the
   * manager applied outside metadata is not there to digest, so the skeleton has no digest and
   * applyObject reads the object, once per version, to judge it exactly. Default false.
   */
  metadataOnly?: boolean | undefined;
}

/**
 * An informer `transform` for a cache given to `applyObject` as `cache`: the identity metadata,
 * the named labels and annotations, owner references of the named kinds, and the digest of what
 * `fieldManager` applied. Nothing else of the object, whoever wrote it, stays in memory.
 */
export function appliedSkeleton(
  fieldManager: string,
  fields: AppliedSkeletonFields = {},
): (object: KubeObject) => AppliedSkeleton {
  const skeleton = metadataSkeleton(fields);
  const kinds = new Set(fields.ownerKinds ?? []);
  return (object) => {
    const kept = skeleton(object);
    const owners = (object.metadata?.ownerReferences ?? [])
      .filter(
        (owner) =>
          kinds.has(owner.kind) &&
          owner.apiVersion.length <= MAX_OWNER_NAME &&
          owner.name.length <= MAX_OWNER_NAME &&
          owner.uid.length <= MAX_OWNER_UID,
      )
      .slice(0, MAX_OWNERS)
      .map(({ apiVersion, kind, name, uid, controller }): OwnerReference => ({
        apiVersion: intern(apiVersion),
        kind: intern(kind),
        name: intern(name),
        uid: intern(uid),
        controller,
      }));
    if (owners.length > 0 && kept.metadata) kept.metadata.ownerReferences = owners;
    if (fields.metadataOnly) {
      return { ...kept, appliedDigest: null, contentVersion: object.metadata?.resourceVersion };
    }
    return { ...kept, appliedDigest: appliedDigest(object, fieldManager) };
  };
}

export const isAppliedSkeleton = (object: KubeObject): object is AppliedSkeleton =>
  Object.hasOwn(object, 'appliedDigest');

/** The digest of the fields `fieldManager` owns on `live`; null when it never applied it. */
export function appliedDigest(live: KubeObject, fieldManager: string): string | null {
  const entry = applyEntry(live.metadata?.managedFields, fieldManager);
  if (!entry) return null;
  // The owned fields with their values, as one tree: a field owned whole (an atomic roleRef, a
  // list) brings its whole value, so the tree does not depend on how finely ownership is kept.
  const tree: Record<string, unknown> = {};
  for (const path of ownedLeaves(entry.fieldsV1)) {
    const value = valueAt(live as Record<string, unknown>, path);
    if (value !== undefined) setAt(tree, path, value);
  }
  return digestOf(tree);
}

/** The digest a live object has when it holds exactly `desired` (and nothing else is owned). */
export function desiredDigest(desired: KubeObject): string {
  const { metadata, ...rest } = comparableFields(desired as Record<string, unknown>);
  // Name and namespace identify the object; managedFields never lists them.
  const owned = Object.fromEntries(
    Object.entries(isPlainObject(metadata) ? metadata : {}).filter(
      ([key]) => key !== 'name' && key !== 'namespace',
    ),
  );
  return digestOf(Object.keys(owned).length > 0 ? { ...rest, metadata: owned } : rest);
}

function digestOf(tree: Record<string, unknown>): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(tree, [])))
    .digest('base64url');
}

function setAt(tree: Record<string, unknown>, path: Path, value: unknown): void {
  let node = tree;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (isPlainObject(next)) node = next;
    else node = node[key] = {};
  }
  node[path.at(-1) ?? ''] = value;
}

function valueAt(source: Record<string, unknown>, path: Path): unknown {
  let value: unknown = source;
  for (const key of path) {
    if (!isPlainObject(value)) return undefined;
    value = value[key];
  }
  return value;
}

/**
 * One spelling per value as subsetDifference compares them: quantities by value, object keys in
 * order, absent and null alike, an object left empty by that absent. Anything it cannot tell
 * apart exactly (a zero the server dropped) spells differently, which costs a read, never a
 * skipped write.
 */
function canonical(value: unknown, path: Path): unknown {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value)) return value.map((item, i) => canonical(item, [...path, String(i)]));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const child = canonical(value[key], [...path, key]);
      if (child !== null) out[key] = child;
    }
    return out;
  }
  if (isQuantityPath(path) && isScalarQuantity(value)) {
    const quantity = parseQuantity(value);
    if (quantity) return `quantity:${reduced(quantity.numerator, quantity.denominator)}`;
  }
  return value;
}

function reduced(numerator: bigint, denominator: bigint): string {
  let [a, b] = [numerator < 0n ? -numerator : numerator, denominator];
  while (b !== 0n) [a, b] = [b, a % b];
  const gcd = a === 0n ? 1n : a;
  return `${numerator / gcd}/${denominator / gcd}`;
}
