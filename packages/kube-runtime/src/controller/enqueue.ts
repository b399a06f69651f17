// The glue between informers and a work queue: every add, update (resyncs included) and delete
// enqueues keys, by default the object's own `namespace/name`, or its owners' keys, so a change
// to a child object reconciles the parent that owns it.
import type { Informer } from '../informer/informer.js';
import { objectKey } from '../object-key.js';
import type { KubeObject, ResourceRef } from '../client/resources.js';
import type { WorkQueue } from './work-queue.js';

/** Subscribes the queue to the informer's events; returns the unsubscribe function. */
export function enqueueFrom<T extends KubeObject>(
  informer: Informer<T>,
  queue: WorkQueue,
  toKeys: (object: T) => readonly string[] = (object) => [objectKey(object)],
): () => void {
  const enqueue = (object: T) => {
    for (const key of toKeys(object)) queue.add(key);
  };
  const off = [
    informer.on('add', enqueue),
    informer.on('update', enqueue),
    informer.on('delete', enqueue),
  ];
  return () => {
    for (const unsubscribe of off) unsubscribe();
  };
}

/**
 * Keys of an object's owners of one kind, e.g. `ownerKeys(resources.profiles)` maps a Profile's
 * ResourceQuota to the Profile's key. An owner is cluster-scoped or in the object's namespace.
 */
export function ownerKeys(owner: ResourceRef): (object: KubeObject) => string[] {
  return (object) =>
    (object.metadata?.ownerReferences ?? [])
      .filter(
        (ref) => ref.kind === owner.kind && ref.apiVersion.split('/')[0] === apiGroupOf(owner),
      )
      .map((ref) =>
        owner.namespaced ? `${object.metadata?.namespace ?? ''}/${ref.name}` : ref.name,
      );
}

function apiGroupOf(ref: ResourceRef): string {
  // ownerReferences carry `group/version` (or just `v1` for the core group).
  return ref.group === '' ? ref.version : ref.group;
}
