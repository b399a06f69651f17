// What makes a Profile's reconcile run: the Profile itself changing (or its resync), its
// namespace appearing, going, starting to terminate or changing hands (its ownerReferences or
// the adoption annotation), any kfx-managed object it owns or that lies in its namespace being
// added, edited or deleted by someone else, and any object its reconcilers read changing
// (read-kinds.ts): one in its own namespace reconciles it, one in a fixed namespace (the Secrets
// to copy) every Profile. The controller's own writes come back as watch events too; those are
// recognised (echoes.ts) and skipped. Only Profiles in the cache are enqueued: those the
// controller's profileSelector selects.
import { resources, type KubeObject } from '@kfx/kube-runtime/client';
import { metadataSkeleton, type Informer } from '@kfx/kube-runtime/informer';
import { ownerKeys } from '@kfx/kube-runtime/controller';
import { POD_SECURITY_LABELS } from '../pod-security/namespace-levels.js';
import type { Profile } from '../profile.js';
import type { Echoes } from './echoes.js';
import { ADOPT_ANNOTATION } from './namespace-claim.js';
import { ownedChanged, profileChanged } from './event-filters.js';
import { objectId, type OwnedKinds } from './owned-kinds.js';
import type { ReadKinds } from './read-kinds.js';

export interface TriggerSources {
  profiles: Informer<Profile>;
  /** The required cluster objects (required-objects.ts): a change concerns every Profile. */
  required?: readonly Informer<KubeObject>[] | undefined;
  namespaces: Informer<KubeObject>;
  kinds: OwnedKinds;
  reads: ReadKinds;
  echoes: Echoes;
}

export interface TriggerSinks {
  enqueue: (profile: string) => void;
  deleted: (profile: string) => void;
}

/**
 * The namespace cache keeps only what the namespace check (namespace-claim.ts) reads, the Pod
 * Security labels, so that a reconcile that changes a namespace's level can say so, and the
 * labels the reconcilers decide by (`labels`: the namespace reconciler's defaults and enforced
 * labels, namespace-labels.ts).
 */
export const namespaceSkeleton = (labels: readonly string[] = []) =>
  metadataSkeleton({
    annotations: [ADOPT_ANNOTATION, 'owner'],
    labels: [...new Set([...POD_SECURITY_LABELS, ...labels])],
    ownerReferences: true,
  });

/** The parts of a cached namespace that decide what its Profile may do. */
const claimOf = (ns: KubeObject): string =>
  JSON.stringify([
    Boolean(ns.metadata?.deletionTimestamp),
    ns.metadata?.ownerReferences ?? [],
    ns.metadata?.annotations ?? {},
  ]);

export function wireTriggers(sources: TriggerSources, sinks: TriggerSinks): void {
  const { profiles, namespaces, kinds, reads, echoes } = sources;
  const everyProfile = () => {
    for (const name of profiles.store.keys()) sinks.enqueue(name);
  };
  for (const informer of sources.required ?? []) {
    informer.on('add', everyProfile);
    informer.on('delete', everyProfile);
    informer.on('update', (object, old) => {
      if (ownedChanged(object, old)) everyProfile();
    });
  }
  const nameOf = (object: KubeObject) => object.metadata?.name ?? '';
  profiles.on('add', (profile) => {
    sinks.enqueue(nameOf(profile));
  });
  profiles.on('update', (profile, old) => {
    const name = nameOf(profile);
    if (echoes.isEcho(`profile/${name}`, profile.metadata?.resourceVersion)) return;
    if (profileChanged(profile, old)) sinks.enqueue(name);
  });
  profiles.on('delete', (profile) => {
    sinks.deleted(nameOf(profile));
  });

  const namespaceEvent = (ns: KubeObject) => {
    if (profiles.store.get(nameOf(ns))) sinks.enqueue(nameOf(ns));
  };
  namespaces.on('add', namespaceEvent);
  namespaces.on('delete', namespaceEvent);
  namespaces.on('update', (ns, old) => {
    if (claimOf(ns) !== claimOf(old)) namespaceEvent(ns);
  });

  const owners = ownerKeys(resources.profiles);
  // The Profiles an object names as owners, before and after the change (one it stopped naming
  // lost it), and the Profile whose namespace holds it: a tenant may point an object of its
  // namespace at another Profile, and that Profile's reconcile deletes nothing there, so the
  // namespace's own must put it back. Only the Profiles in the cache: another controller's
  // (outside the selector) are not ours.
  const ownedEvent = (...versions: KubeObject[]) => {
    const names = new Set<string>();
    for (const object of versions) {
      for (const name of owners(object)) names.add(name);
      const namespace = object.metadata?.namespace;
      if (namespace) names.add(namespace);
    }
    for (const name of names) if (profiles.store.get(name)) sinks.enqueue(name);
  };
  for (const { informer, ref } of kinds.byKey.values()) {
    const mine = (object: KubeObject) =>
      echoes.isEcho(objectId(ref, object), object.metadata?.resourceVersion);
    informer.on('add', (object) => {
      if (!mine(object)) ownedEvent(object);
    });
    informer.on('delete', (object) => {
      ownedEvent(object);
    });
    informer.on('update', (object, old) => {
      if (!mine(object) && ownedChanged(object, old)) ownedEvent(object, old);
    });
  }

  for (const { namespace, informer, concerns } of reads.kinds) {
    // A fixed namespace (the Secrets to copy) concerns every Profile; otherwise the object's
    // namespace is a Profile's.
    const readEvent = (object: KubeObject) => {
      if (!concerns(object)) return;
      if (namespace !== undefined) {
        for (const name of profiles.store.keys()) sinks.enqueue(name);
      } else {
        const name = object.metadata?.namespace ?? '';
        if (profiles.store.get(name)) sinks.enqueue(name);
      }
    };
    informer.on('add', readEvent);
    informer.on('delete', readEvent);
    informer.on('update', (object, old) => {
      // An object that stops being of concern (a Secret whose label no longer matches) counts.
      if (ownedChanged(object, old)) readEvent(concerns(object) ? object : old);
    });
  }
}
