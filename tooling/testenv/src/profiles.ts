// The namespace of a Kubeflow Profile as the upstream Kubeflow profile controller makes it:
// named after the Profile, annotated with its owner, and owned by it (an ownerReference with the
// Profile's uid, so deleting the Profile deletes it). Tests that stand in for that controller
// create this after the Profile.
import type { V1Namespace } from '@kubernetes/client-node';

export interface ProfileLike {
  metadata?: { name?: string | undefined; uid?: string | undefined } | undefined;
  spec?: { owner?: { name?: string | undefined } | undefined } | undefined;
}

export function profileNamespace(profile: ProfileLike): V1Namespace {
  const name = profile.metadata?.name;
  const uid = profile.metadata?.uid;
  if (!name || !uid) {
    throw new Error('profileNamespace: the Profile has no metadata.name or uid (create it first)');
  }
  const owner = profile.spec?.owner?.name;
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name,
      ...(owner ? { annotations: { owner } } : {}),
      ownerReferences: [
        {
          apiVersion: 'kubeflow.org/v1',
          kind: 'Profile',
          name,
          uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
  };
}
