import type { KubeObject } from '@kfx/kube-runtime/client';
import type { Informer } from '@kfx/kube-runtime/informer';
import { describe, expect, it } from 'vitest';
import type { Profile } from '../profile.js';
import { desiredObjects } from './desired-objects.js';
import type { OwnedKinds } from './owned-kinds.js';
import { obsoleteObjects } from './prune.js';

const profileB: Profile = { metadata: { name: 'team-b', uid: 'uid-b' } };
const ownedByB = (namespace: string, name: string): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: {
    name,
    namespace,
    uid: `${namespace}-${name}`,
    labels: { 'kfx.dev/reconciler': 'network-policies' },
    ownerReferences: [
      { apiVersion: 'kubeflow.org/v1', kind: 'Profile', name: 'team-b', uid: 'uid-b' },
    ],
  },
});

const objects = [
  // Dropped from B's config: B's to delete.
  ownedByB('team-b', 'allow-old'),
  // Pointed at B by the tenant of team-a, another Profile's namespace.
  ownedByB('team-a', 'default-deny'),
  // Where a template put it: a namespace no Profile holds.
  ownedByB('argocd', 'team-b-app'),
];
const kinds = {
  byKey: new Map([
    [
      'networkpolicies.networking.k8s.io',
      {
        ref: {
          group: 'networking.k8s.io',
          version: 'v1',
          resource: 'networkpolicies',
          namespaced: true,
        },
        informer: {
          store: {
            byIndex: (index: string, uid: string) =>
              index === 'owner' && uid === 'uid-b' ? objects : [],
          },
        } as unknown as Informer<KubeObject>,
      },
    ],
  ]),
} as unknown as OwnedKinds;
const namespaces = new Map<string, KubeObject>([
  [
    'team-a',
    {
      metadata: {
        name: 'team-a',
        ownerReferences: [
          { apiVersion: 'kubeflow.org/v1', kind: 'Profile', name: 'team-a', uid: 'uid-a' },
        ],
      },
    },
  ],
  ['team-b', { metadata: { name: 'team-b' } }],
  ['argocd', { metadata: { name: 'argocd' } }],
]);
/** No reconciler wants anything: everything the Profile owns is obsolete, where it may go. */
const nothingWanted = desiredObjects(profileB, [], kinds);

describe('obsolete objects', () => {
  it('are what the Profile owns in its namespace and where no Profile lives, never in another Profile’s', () => {
    const names = obsoleteObjects(profileB, nothingWanted, kinds, namespaces).map(
      ({ object }) => `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`,
    );
    expect(names).toEqual(['team-b/allow-old', 'argocd/team-b-app']);
  });

  it('spare a namespace adopted for a Profile as well', () => {
    const adopted = new Map(namespaces);
    adopted.set('team-a', {
      metadata: { name: 'team-a', annotations: { 'profiles.kfx.dev/adopt': 'alice@example.com' } },
    });
    const names = obsoleteObjects(profileB, nothingWanted, kinds, adopted).map(
      ({ object }) => object.metadata?.name,
    );
    expect(names).not.toContain('default-deny');
  });
});
