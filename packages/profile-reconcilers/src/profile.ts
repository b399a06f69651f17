// The Kubeflow Profile as it is on the wire (kubeflow.org/v1, cluster-scoped), and the marks kfx
// puts on everything it creates for one: the managed-by label, the reconciler label and an
// ownerReference, so that garbage collection deletes the objects with their Profile.
import type { KubeObject } from '@kfx/kube-runtime/client';

/** An RBAC subject: `{ kind: User, name: alice@example.com }`. */
export interface ProfileOwner {
  kind?: string | undefined;
  name?: string | undefined;
  apiGroup?: string | undefined;
  namespace?: string | undefined;
}

export interface ProfileCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string | undefined;
  message?: string | undefined;
  observedGeneration?: number | undefined;
  lastTransitionTime?: string | undefined;
}

export interface Profile extends KubeObject {
  spec?:
    | {
        owner?: ProfileOwner | undefined;
        resourceQuotaSpec?: unknown;
        plugins?: unknown[] | undefined;
      }
    | undefined;
  status?: { conditions?: ProfileCondition[] | undefined; [field: string]: unknown } | undefined;
}

export const PROFILE_API_VERSION = 'kubeflow.org/v1';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY_VALUE = 'kfx';
/** Which reconciler made an object; handy for `kubectl get -l kfx.dev/reconciler=quotas`. */
export const RECONCILER_LABEL = 'kfx.dev/reconciler';
export const MANAGED_SELECTOR = `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}`;

/** The tenant namespace has the Profile's name. */
export function profileNamespace(profile: Profile): string {
  return profile.metadata?.name ?? '';
}

/**
 * Adds what makes an object kfx's, for this Profile and this reconciler, to a copy of it. Without
 * `owned` the ownerReference is left out: an adopted namespace existed before its Profile and
 * must not be deleted with it.
 */
export function stampOwnership<T extends KubeObject>(
  object: T,
  profile: Profile,
  reconciler: string,
  owned = true,
): T {
  const meta = profile.metadata ?? {};
  const ownerReferences = [
    {
      apiVersion: PROFILE_API_VERSION,
      kind: 'Profile',
      name: meta.name ?? '',
      uid: meta.uid ?? '',
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
  return {
    ...object,
    metadata: {
      ...object.metadata,
      labels: {
        ...object.metadata?.labels,
        [MANAGED_BY_LABEL]: MANAGED_BY_VALUE,
        [RECONCILER_LABEL]: reconciler,
      },
      ...(owned ? { ownerReferences } : {}),
    },
  };
}

/** True for the Namespace object of the Profile itself. */
export const isProfileNamespace = (profile: Profile, object: KubeObject): boolean =>
  object.apiVersion === 'v1' &&
  object.kind === 'Namespace' &&
  object.metadata?.name === profileNamespace(profile);
