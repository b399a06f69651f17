// The digests agree exactly where whyWrite says there is nothing to write (so a cache of
// skeletons skips the same writes), differ where it would write, and a skeleton keeps nothing
// of the object's content. apply.integration.test.ts checks the same against a real server.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../client/resources.js';
import { appliedDigest, appliedSkeleton, desiredDigest } from './applied-digest.js';
import { whyWrite } from './apply.js';

const desired = {
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: {
    name: 'quotas',
    namespace: 'team-a',
    labels: { 'app.kubernetes.io/managed-by': 'kfx' },
  },
  spec: { hard: { cpu: '1000m', memory: '1Gi', pods: 100 } },
};

const ownsQuota = {
  'f:metadata': { 'f:labels': { 'f:app.kubernetes.io/managed-by': {} } },
  'f:spec': { 'f:hard': { 'f:cpu': {}, 'f:memory': {}, 'f:pods': {} } },
};

function live(
  hard: Record<string, string> = { cpu: '1', memory: '1073741824', pods: '100' },
  fieldsV1: unknown = ownsQuota,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: {
      name: 'quotas',
      namespace: 'team-a',
      uid: 'u1',
      resourceVersion: '42',
      labels: { 'app.kubernetes.io/managed-by': 'kfx', 'argocd.argoproj.io/instance': 'x' },
      ownerReferences: [
        { apiVersion: 'kubeflow.org/v1', kind: 'Profile', name: 'team-a', uid: 'p1' },
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'c1' },
      ],
      managedFields: [
        { manager: 'kfx-controller', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1 },
        {
          manager: 'argocd',
          operation: 'Update',
          fieldsV1: { 'f:metadata': { 'f:labels': { 'f:argocd.argoproj.io/instance': {} } } },
        },
      ],
    },
    spec: { hard },
    status: { hard: { cpu: '1' }, used: { cpu: '0' } },
  } as KubeObject;
}

describe('desiredDigest and appliedDigest', () => {
  it('agree when whyWrite skips: quantities by value, other managers and status ignored', () => {
    expect(whyWrite(desired, live(), 'kfx-controller')).toBeUndefined();
    expect(appliedDigest(live(), 'kfx-controller')).toBe(desiredDigest(desired));
  });

  it('differ when a value drifted or an owned field is no longer desired', () => {
    expect(
      appliedDigest(live({ cpu: '2', memory: '1Gi', pods: '100' }), 'kfx-controller'),
    ).not.toBe(desiredDigest(desired));
    const ownsMore = {
      ...ownsQuota,
      'f:spec': { 'f:hard': { 'f:cpu': {}, 'f:memory': {}, 'f:pods': {}, 'f:secrets': {} } },
    };
    const extra = live({ cpu: '1', memory: '1Gi', pods: '100', secrets: '5' }, ownsMore);
    expect(whyWrite(desired, extra, 'kfx-controller')).toBe(
      'spec.hard.secrets is owned but no longer desired',
    );
    expect(appliedDigest(extra, 'kfx-controller')).not.toBe(desiredDigest(desired));
  });

  it('agree however finely ownership is kept: an atomic roleRef is one owned field', () => {
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'default-editor', namespace: 'team-a' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
      subjects: [{ kind: 'ServiceAccount', name: 'default-editor', namespace: 'team-a' }],
    };
    const liveBinding = {
      ...binding,
      metadata: {
        ...binding.metadata,
        managedFields: [
          {
            manager: 'kfx-controller',
            operation: 'Apply',
            fieldsV1: { 'f:roleRef': {}, 'f:subjects': {} },
          },
        ],
      },
    };
    expect(whyWrite(binding, liveBinding, 'kfx-controller')).toBeUndefined();
    expect(appliedDigest(liveBinding, 'kfx-controller')).toBe(desiredDigest(binding));
  });

  it('is null for a manager that never applied the object', () => {
    expect(appliedDigest(live(), 'someone-else')).toBeNull();
  });

  it('spells a zero the server may have dropped differently from its absence (a read decides)', () => {
    const np = (spec: Record<string, unknown>) =>
      ({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: {
          name: 'n',
          namespace: 'a',
          managedFields: [
            { manager: 'm', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:podSelector': {} } } },
          ],
        },
        spec,
      }) as KubeObject;
    const want = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'n', namespace: 'a' },
      spec: { podSelector: {} },
    };
    expect(appliedDigest(np({ podSelector: {} }), 'm')).toBe(desiredDigest(want));
    expect(appliedDigest(np({}), 'm')).not.toBe(desiredDigest(want));
  });
});

describe('appliedSkeleton', () => {
  it('keeps identity, the named labels, owners of the named kinds and the digest; nothing else', () => {
    const big = live();
    (big as { data?: unknown }).data = { blob: 'x'.repeat(100_000) };
    const skeleton = appliedSkeleton('kfx-controller', {
      labels: ['app.kubernetes.io/managed-by'],
      ownerKinds: ['Profile'],
    })(big);
    expect(skeleton).toEqual({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: {
        name: 'quotas',
        namespace: 'team-a',
        uid: 'u1',
        resourceVersion: '42',
        deletionTimestamp: undefined,
        labels: { 'app.kubernetes.io/managed-by': 'kfx' },
        ownerReferences: [
          {
            apiVersion: 'kubeflow.org/v1',
            kind: 'Profile',
            name: 'team-a',
            uid: 'p1',
            controller: undefined,
          },
        ],
      },
      appliedDigest: desiredDigest(desired),
    });
    expect(JSON.stringify(skeleton).length).toBeLessThan(600);
  });

  it('keeps at most 16 owner references however many the object lists', () => {
    const many = live();
    if (many.metadata) {
      many.metadata.ownerReferences = Array.from({ length: 5000 }, (_, i) => ({
        apiVersion: 'kubeflow.org/v1',
        kind: 'Profile',
        name: `p${i}`,
        uid: `u${i}`,
      }));
    }
    const skeleton = appliedSkeleton('kfx-controller', { ownerKinds: ['Profile'] })(many);
    expect(skeleton.metadata?.ownerReferences).toHaveLength(16);
  });

  it('keeps no owner reference longer than a real owner’s, which the API server accepts', () => {
    const long = live();
    if (long.metadata) {
      long.metadata.ownerReferences = Array.from({ length: 16 }, (_, i) => ({
        apiVersion: 'kubeflow.org/v1',
        kind: 'Profile',
        name: `p${i}`.padEnd(60_000, 'x'),
        uid: `u${i}`.padEnd(20_000, 'u'),
      }));
      long.metadata.ownerReferences.push({
        apiVersion: 'kubeflow.org/v1',
        kind: 'Profile',
        name: 'team-a',
        uid: 'p1',
      });
    }
    const skeleton = appliedSkeleton('kfx-controller', { ownerKinds: ['Profile'] })(long);
    expect(skeleton.metadata?.ownerReferences?.map((o) => o.name)).toEqual(['team-a']);
    expect(JSON.stringify(skeleton).length).toBeLessThan(600);
    // The longest references it keeps, 16 of them.
    if (long.metadata) {
      long.metadata.ownerReferences = Array.from({ length: 20 }, (_, i) => ({
        apiVersion: `${i}.example.com/v1`.padStart(253, 'a'),
        kind: 'Profile',
        name: `p${i}`.padEnd(253, 'x'),
        uid: `u${i}`.padEnd(64, 'u'),
      }));
    }
    const widest = appliedSkeleton('kfx-controller', { ownerKinds: ['Profile'] })(long);
    expect(widest.metadata?.ownerReferences).toHaveLength(16);
    expect(JSON.stringify(widest).length).toBeLessThan(11 * 1024);
  });

  it('of a metadata-only cache has no digest, and tells each version apart', () => {
    const skeleton = appliedSkeleton('kfx-controller', { metadataOnly: true });
    const first = skeleton(live());
    expect(first.appliedDigest).toBeNull();
    expect(first.contentVersion).toBe('42');
    const next = live();
    if (next.metadata) next.metadata.resourceVersion = '43';
    expect(skeleton(next).contentVersion).toBe('43');
  });
});
