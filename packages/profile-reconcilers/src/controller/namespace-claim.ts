// Whether a Profile may touch the namespace of its name. Anyone allowed to create a Profile
// (Kubeflow users can register their own) picks its name, so the name alone proves nothing: kfx
// writes into, binds in and owns only a namespace this Profile created (an ownerReference with the
// Profile's uid, which kfx and the upstream Kubeflow profile controller put on the namespaces
// they create), one an administrator annotated for adoption by the Profile's owner, or one that
// does not exist yet. Reserved names (kube-*, default, the controller's own namespace, a
// configurable list of platform namespaces) are refused whatever their state.
import type { KubeObject } from '@kfx/kube-runtime';
import { PROFILE_API_VERSION, profileNamespace, type Profile } from '../profile.js';

/** Set by an administrator on an existing namespace: the owner whose Profile may adopt it. */
export const ADOPT_ANNOTATION = 'profiles.kfx.dev/adopt';

/** Refused whatever the configuration says. */
export const ALWAYS_PROTECTED_NAMESPACES: readonly string[] = ['kube-*', 'default'];

/** Platform namespaces of a Kubeflow installation, refused unless the configuration says otherwise. */
export const DEFAULT_PROTECTED_NAMESPACES: readonly string[] = [
  'kubeflow',
  'kubeflow-system',
  'istio-system',
  'cert-manager',
  'auth',
  'dex',
  'oauth2-proxy',
  'knative-serving',
  'knative-eventing',
];

/** A namespace name, or a pattern with `*` standing for any run of characters. */
export const NAMESPACE_PATTERN = /^[a-z0-9*]([-a-z0-9*]{0,61}[a-z0-9*])?$/;

export type NamespaceClaim =
  /** Absent: the namespace reconciler may create it, owned by the Profile. */
  | { verdict: 'absent' }
  /** The Profile's own (ownerReference with its uid) or adopted (annotation): objects may go in. */
  | { verdict: 'held'; adopted: boolean }
  | { verdict: 'wait' | 'refuse'; reason: string; message: string };

export class NamespaceGuard {
  readonly #patterns: { text: string; regex: RegExp }[];

  /** `protectedNamespaces` replaces DEFAULT_PROTECTED_NAMESPACES; kube-* and default stay. */
  constructor(protectedNamespaces: readonly string[] = DEFAULT_PROTECTED_NAMESPACES) {
    const bad = protectedNamespaces.filter((p) => !NAMESPACE_PATTERN.test(p));
    if (bad.length > 0) {
      throw new Error(
        `protectedNamespaces: ${bad.map((p) => JSON.stringify(p)).join(', ')} ${bad.length === 1 ? 'is' : 'are'} not a namespace name or pattern (lower-case letters, digits, "-" and "*")`,
      );
    }
    this.#patterns = [...new Set([...ALWAYS_PROTECTED_NAMESPACES, ...protectedNamespaces])].map(
      (text) => ({ text, regex: globRegex(text) }),
    );
  }

  /** The pattern that reserves `name`, if any. */
  protectedBy(name: string): string | undefined {
    return this.#patterns.find((p) => p.regex.test(name))?.text;
  }

  /** What the Profile may do with its namespace, `live` being its cached state. */
  judge(profile: Profile, live: KubeObject | undefined): NamespaceClaim {
    const name = profileNamespace(profile);
    const reserved = this.protectedBy(name);
    if (reserved !== undefined) {
      return {
        verdict: 'refuse',
        reason: 'NamespaceReserved',
        message: `namespace ${name} is reserved (protected namespaces: ${reserved}); kfx changes nothing in it for a Profile`,
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
    const profiles = (live.metadata?.ownerReferences ?? []).filter(
      (o) =>
        o.kind === 'Profile' && o.apiVersion.split('/')[0] === PROFILE_API_VERSION.split('/')[0],
    );
    const uid = profile.metadata?.uid;
    if (uid && profiles.some((o) => o.uid === uid)) return { verdict: 'held', adopted: false };
    const owner = profile.spec?.owner?.name;
    const adoptFor = live.metadata?.annotations?.[ADOPT_ANNOTATION];
    if (adoptFor !== undefined && owner !== undefined && adoptFor === owner) {
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
    const hint =
      adoptFor === undefined
        ? `an administrator who wants this Profile to manage it runs: kubectl annotate namespace ${name} ${ADOPT_ANNOTATION}=${owner ?? '<owner>'}`
        : `its ${ADOPT_ANNOTATION} annotation names ${JSON.stringify(adoptFor)}, not this Profile's owner ${JSON.stringify(owner ?? '')}`;
    return {
      verdict: 'refuse',
      reason: 'NamespaceNotOwned',
      message: `namespace ${name} already exists and was not created for this Profile (owner: ${ownerOf(live)}); kfx changes nothing in it: ${hint}`,
    };
  }
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
