// Whether a Profile may touch the namespace of its name. Anyone allowed to create a Profile
// (Kubeflow users can register their own) picks its name, so the name alone proves nothing: kfx
// writes into, binds in and owns only a namespace this Profile created (an ownerReference with the
// Profile's uid, which kfx and the upstream Kubeflow profile controller put on the namespaces
// they create), one an administrator annotated for adoption by the Profile's owner (a User), or
// one that does not exist yet. Reserved names are refused whatever their state: kube-*, default,
// the controller's own namespace, a configurable list of platform namespaces (which must cover
// what is installed later, since the name is free until then), and every namespace the
// reconcilers' configuration depends on (a peer the network policies admit, the source of
// copies, a template's fixed target), for whoever held one would hold what it gives.
import type { KubeObject } from '@kfx/kube-runtime/client';
import { PROFILE_API_VERSION, profileNamespace, type Profile } from '../profile.js';
import type { NamespaceUse } from '../reconciler.js';

/** Set by an administrator on an existing namespace: the owner whose Profile may adopt it. */
export const ADOPT_ANNOTATION = 'profiles.kfx.dev/adopt';

/** Refused whatever the configuration says. */
export const ALWAYS_PROTECTED_NAMESPACES: readonly string[] = ['kube-*', 'kube', 'default'];

/**
 * Platform namespaces (Kubeflow's, and those common operators install into), refused unless the
 * configuration says otherwise. A name is taken by whoever asks first: the list covers what a
 * site may install later, not only what runs today.
 */
export const DEFAULT_PROTECTED_NAMESPACES: readonly string[] = [
  '*-system',
  'kfx-*',
  'kubeflow',
  // Not kubeflow-*: Kubeflow's own first Profile is kubeflow-user-example-com.
  'istio-*',
  'knative-*',
  'cert-manager',
  'auth',
  'dex',
  'oauth2-proxy',
  'monitoring',
  'prometheus',
  'grafana',
  'logging',
  'kubernetes-dashboard',
  'local-path-storage',
  'ingress-nginx',
  'argocd',
  'argo',
  'argo-*',
  'tekton-*',
  'gatekeeper',
  'kyverno',
  'vault',
  'external-secrets',
  'external-dns',
  'velero',
  'rook-ceph',
  'longhorn',
  'metallb',
  'calico-*',
  'tigera-operator',
  'cattle-*',
  'openshift',
  'openshift-*',
  'olm',
  'operators',
  'minio',
];

/** A namespace name, or a pattern with `*` standing for any run of characters. */
export const NAMESPACE_PATTERN = /^[a-z0-9*]([-a-z0-9*]{0,61}[a-z0-9*])?$/;

export type NamespaceClaim =
  /** Absent: the namespace reconciler may create it, owned by the Profile. */
  | { verdict: 'absent' }
  /** The Profile's own (ownerReference with its uid) or adopted (annotation): objects may go in. */
  | { verdict: 'held'; adopted: boolean }
  | { verdict: 'wait' | 'refuse'; reason: string; message: string };

interface Reservation {
  regex: RegExp;
  /** For the message: `protected namespaces: kube-*` or `secrets: the Secrets are copied from it`. */
  why: string;
}

export class NamespaceGuard {
  readonly #reserved: Reservation[];
  /** Namespaces reconcilers copy from: reconciler name → namespace. */
  readonly #sources: { reconciler: string; namespace: string }[] = [];

  /**
   * `protectedNamespaces` replaces DEFAULT_PROTECTED_NAMESPACES (kube-*, kube and default stay);
   * `uses` are the namespaces the reconcilers' configuration depends on, by reconciler.
   */
  constructor(
    protectedNamespaces: readonly string[] = DEFAULT_PROTECTED_NAMESPACES,
    uses: readonly { reconciler: string; namespaces: readonly NamespaceUse[] }[] = [],
  ) {
    const bad = protectedNamespaces.filter((p) => !NAMESPACE_PATTERN.test(p));
    if (bad.length > 0) {
      throw new Error(
        `protectedNamespaces: ${bad.map((p) => JSON.stringify(p)).join(', ')} ${bad.length === 1 ? 'is' : 'are'} not a namespace name or pattern (lower-case letters, digits, "-" and "*")`,
      );
    }
    const patterns = [...new Set([...ALWAYS_PROTECTED_NAMESPACES, ...protectedNamespaces])];
    this.#reserved = patterns.map((text) => ({
      regex: globRegex(text),
      why: `protected namespaces: ${text}`,
    }));
    for (const { reconciler, namespaces } of uses) {
      for (const use of namespaces) {
        this.#reserved.push({ regex: globRegex(use.name), why: `${reconciler}: ${use.why}` });
        if (use.source) this.#sources.push({ reconciler, namespace: use.name });
      }
    }
  }

  /** Why `name` is reserved, if it is. */
  protectedBy(name: string): string | undefined {
    return this.#reserved.find((r) => r.regex.test(name))?.why;
  }

  /**
   * The reconcilers whose source namespace belongs to a Profile (it was made for one before the
   * configuration named it), with why: a tenant's objects are never copied to other tenants.
   */
  refusedSources(namespaces: { get(name: string): KubeObject | undefined }): Map<string, string> {
    const refused = new Map<string, string>();
    for (const { reconciler, namespace } of this.#sources) {
      const owner = profileOf(namespaces.get(namespace));
      if (owner !== undefined && !refused.has(reconciler)) {
        refused.set(
          reconciler,
          `namespace ${namespace} belongs to ${owner}: kfx copies nothing from a tenant’s namespace`,
        );
      }
    }
    return refused;
  }

  /** What the Profile may do with its namespace, `live` being its cached state. */
  judge(profile: Profile, live: KubeObject | undefined): NamespaceClaim {
    const name = profileNamespace(profile);
    const reserved = this.protectedBy(name);
    if (reserved !== undefined) {
      return {
        verdict: 'refuse',
        reason: 'NamespaceReserved',
        message: `namespace ${name} is reserved (${reserved}); kfx changes nothing in it for a Profile`,
      };
    }
    if (!live) return { verdict: 'absent' };
    if (live.metadata?.deletionTimestamp) {
      return {
        verdict: 'wait',
        reason: 'NamespaceTerminating',
        message: `namespace ${name} is being deleted`,
      };
    }
    const profiles = profileOwners(live);
    const uid = profile.metadata?.uid;
    if (uid && profiles.some((o) => o.uid === uid)) return { verdict: 'held', adopted: false };
    const owner = profile.spec?.owner;
    const adoptFor = live.metadata?.annotations?.[ADOPT_ANNOTATION];
    // The annotation names a user: a Group (system:authenticated) or a ServiceAccount of that
    // name would hand the namespace to everyone in it.
    const byUser = owner?.kind === 'User';
    if (adoptFor !== undefined && byUser && adoptFor === owner.name) {
      return { verdict: 'held', adopted: true };
    }
    const earlier = profiles.find((o) => o.name === name);
    if (earlier) {
      return {
        verdict: 'wait',
        reason: 'NamespaceOfEarlierProfile',
        message: `namespace ${name} belongs to an earlier Profile of this name (uid ${earlier.uid}) and waits for garbage collection`,
      };
    }
    const notOwned = (hint: string): NamespaceClaim => ({
      verdict: 'refuse',
      reason: 'NamespaceNotOwned',
      message: `namespace ${name} already exists and was not created for this Profile (owner: ${ownerOf(live)}); kfx changes nothing in it: ${hint}`,
    });
    if (adoptFor !== undefined && !byUser) {
      return notOwned(
        `only a Profile whose owner is a User adopts a namespace (this one is owned by ${owner?.kind ?? 'no kind'} ${owner?.name ?? ''})`,
      );
    }
    return notOwned(
      adoptFor === undefined
        ? `an administrator who wants this Profile to manage it runs: kubectl annotate namespace ${name} ${ADOPT_ANNOTATION}=${owner?.name ?? '<owner>'}`
        : `its ${ADOPT_ANNOTATION} annotation names ${JSON.stringify(adoptFor)}, not this Profile's owner ${JSON.stringify(owner?.name ?? '')}`,
    );
  }
}

const profileOwners = (namespace: KubeObject) =>
  (namespace.metadata?.ownerReferences ?? []).filter(
    (o) => o.kind === 'Profile' && o.apiVersion.split('/')[0] === PROFILE_API_VERSION.split('/')[0],
  );

/**
 * Whether the namespace is some Profile's: made for one (an ownerReference to a Profile, as kfx
 * and the upstream controller make them) or annotated for adoption by one's owner.
 */
export const belongsToProfile = (namespace: KubeObject | undefined): boolean =>
  profileOf(namespace) !== undefined;

/** Which Profile the namespace was made for (its ownerReference) or annotated for adoption by. */
function profileOf(namespace: KubeObject | undefined): string | undefined {
  if (!namespace) return undefined;
  const owner = profileOwners(namespace)[0];
  if (owner) return `Profile ${owner.name}`;
  const user = namespace.metadata?.annotations?.[ADOPT_ANNOTATION];
  return user === undefined ? undefined : `the Profile of ${user} (${ADOPT_ANNOTATION})`;
}

/** Who the namespace belongs to, as far as its metadata says. */
function ownerOf(namespace: KubeObject): string {
  const refs = namespace.metadata?.ownerReferences ?? [];
  if (refs.length > 0) return refs.map((o) => `${o.kind} ${o.name} (uid ${o.uid})`).join(', ');
  const annotated = namespace.metadata?.annotations?.owner;
  return annotated === undefined ? 'none recorded' : `annotation owner=${annotated}`;
}

function globRegex(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\-]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}
