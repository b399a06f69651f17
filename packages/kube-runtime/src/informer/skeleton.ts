// An informer `transform` that keeps only the identity of an object and the metadata a controller
// reads (named annotations and labels, optionally its owners): a cache of every Pod or namespace
// in a cluster then costs a few hundred bytes per object instead of the whole object, the more so
// as the strings many objects repeat are kept once (intern.ts).
import type { KubeObject } from '../client/resources.js';
import { intern } from './intern.js';

export interface SkeletonFields {
  /** Annotation keys to keep (the others are dropped). */
  annotations?: readonly string[] | undefined;
  /** Label keys to keep (the others are dropped). */
  labels?: readonly string[] | undefined;
  /** Keep metadata.ownerReferences. Default false. */
  ownerReferences?: boolean | undefined;
}

const pick = (from: Record<string, string> | undefined, keys: readonly string[] | undefined) =>
  keys && from
    ? Object.fromEntries(keys.flatMap((k) => (from[k] === undefined ? [] : [[k, intern(from[k])]])))
    : undefined;

/** `transform` for createInformer: name, namespace, uid, resourceVersion, deletion and `fields`. */
export function metadataSkeleton(fields: SkeletonFields = {}): (object: KubeObject) => KubeObject {
  return (object) => {
    const meta = object.metadata;
    const annotations = pick(meta?.annotations, fields.annotations);
    const labels = pick(meta?.labels, fields.labels);
    return {
      apiVersion: intern(object.apiVersion),
      kind: intern(object.kind),
      metadata: {
        name: intern(meta?.name),
        namespace: intern(meta?.namespace),
        uid: meta?.uid,
        resourceVersion: meta?.resourceVersion,
        deletionTimestamp: meta?.deletionTimestamp,
        ...(fields.ownerReferences ? { ownerReferences: meta?.ownerReferences } : {}),
        ...(annotations ? { annotations } : {}),
        ...(labels ? { labels } : {}),
      },
    };
  };
}
