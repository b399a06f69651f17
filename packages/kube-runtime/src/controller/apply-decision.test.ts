// When applyObject may skip its write: the live object holds the desired values AND the field
// manager owns exactly the desired fields. Checked here on objects as the apiserver returns
// them; apply.integration.test.ts checks the same against a real server.
import { describe, expect, it } from 'vitest';
import { whyWrite } from './apply.js';
import type { KubeObject } from '../client/resources.js';
import { subsetDifference } from './semantic-equal.js';

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

function live(
  overrides: {
    fieldsV1?: unknown;
    labels?: Record<string, string>;
    hard?: Record<string, string>;
  } = {},
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: {
      name: 'quotas',
      namespace: 'team-a',
      uid: 'u1',
      resourceVersion: '42',
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: overrides.labels ?? {
        'app.kubernetes.io/managed-by': 'kfx',
        'argocd.argoproj.io/instance': 'x',
      },
      managedFields: [
        {
          manager: 'kfx-controller',
          operation: 'Apply',
          apiVersion: 'v1',
          fieldsType: 'FieldsV1',
          fieldsV1: overrides.fieldsV1 ?? {
            'f:metadata': { 'f:labels': { 'f:app.kubernetes.io/managed-by': {} } },
            'f:spec': { 'f:hard': { 'f:cpu': {}, 'f:memory': {}, 'f:pods': {} } },
          },
        },
        {
          manager: 'argocd',
          operation: 'Update',
          fieldsV1: { 'f:metadata': { 'f:labels': { 'f:argocd.argoproj.io/instance': {} } } },
        },
      ],
    },
    spec: { hard: overrides.hard ?? { cpu: '1', memory: '1Gi', pods: '100' } },
    status: { hard: { cpu: '1' }, used: { cpu: '0' } },
  } as KubeObject;
}

describe('whyWrite', () => {
  it('skips when the values are in place (quantities by value) and the manager owns them', () => {
    expect(whyWrite(desired, live(), 'kfx-controller')).toBeUndefined();
  });

  it('writes when a value drifted, naming the field', () => {
    expect(
      whyWrite(desired, live({ hard: { cpu: '2', memory: '1Gi', pods: '100' } }), 'kfx-controller'),
    ).toBe('spec.hard.cpu: want "1000m", have "2"');
  });

  it('writes when another manager never applied it', () => {
    expect(whyWrite(desired, live(), 'someone-else')).toBe(
      'someone-else has never applied this object',
    );
  });

  it('writes when a field it applied before is no longer desired, so that apply removes it', () => {
    const fieldsV1 = {
      'f:metadata': { 'f:labels': { 'f:app.kubernetes.io/managed-by': {}, 'f:old': {} } },
      'f:spec': { 'f:hard': { 'f:cpu': {}, 'f:memory': {}, 'f:pods': {} } },
    };
    expect(
      whyWrite(
        desired,
        live({ fieldsV1, labels: { 'app.kubernetes.io/managed-by': 'kfx', old: 'x' } }),
        'kfx-controller',
      ),
    ).toBe('metadata.labels.old is owned but no longer desired');
  });

  it('writes when a desired field is owned by someone else only', () => {
    const fieldsV1 = { 'f:spec': { 'f:hard': { 'f:cpu': {}, 'f:memory': {}, 'f:pods': {} } } };
    expect(whyWrite(desired, live({ fieldsV1 }), 'kfx-controller')).toBe(
      'metadata.labels.app.kubernetes.io/managed-by is desired but not owned',
    );
  });

  it('writes when the object is another kind or is being deleted', () => {
    expect(whyWrite({ ...desired, kind: 'LimitRange' }, live(), 'kfx-controller')).toBe(
      'kind is ResourceQuota',
    );
    const deleting = live();
    if (deleting.metadata) deleting.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    expect(whyWrite(desired, deleting, 'kfx-controller')).toBe('the live object is being deleted');
  });

  it('treats an owned list as one field (its items need schema merge keys)', () => {
    const np = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'allow', namespace: 'a' },
      spec: {
        podSelector: {},
        policyTypes: ['Ingress'],
        ingress: [{ from: [{ namespaceSelector: { matchLabels: { x: 'y' } } }] }],
      },
    };
    const liveNp = {
      ...np,
      metadata: {
        ...np.metadata,
        managedFields: [
          {
            manager: 'kfx',
            operation: 'Apply',
            fieldsV1: { 'f:spec': { 'f:podSelector': {}, 'f:policyTypes': {}, 'f:ingress': {} } },
          },
        ],
      },
    };
    expect(whyWrite(np, liveNp, 'kfx')).toBeUndefined();
  });
});

describe('subsetDifference', () => {
  it('ignores what the server added: defaults, other fields, list item defaults', () => {
    const want = {
      spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }] }] },
    };
    const have = {
      spec: {
        containers: [
          {
            name: 'c',
            image: 'i',
            imagePullPolicy: 'Always',
            ports: [{ containerPort: 80, protocol: 'TCP' }],
          },
        ],
        restartPolicy: 'Always',
      },
    };
    expect(subsetDifference(want, have)).toBeUndefined();
  });

  it('sees a list of another length, and zero values the server dropped as absent', () => {
    expect(subsetDifference({ a: [1] }, { a: [1, 2] })).toBe('a: want [1], have [1,2]');
    expect(
      subsetDifference({ hostNetwork: false, replicas: 0, ingress: [], selector: {} }, {}),
    ).toBeUndefined();
    expect(subsetDifference({ hostNetwork: true }, {})).toBe(
      'hostNetwork: want true, have nothing',
    );
  });

  it('compares quantities by value only where Kubernetes stores quantities', () => {
    expect(
      subsetDifference({ limits: { memory: '1Gi' } }, { limits: { memory: '1073741824' } }),
    ).toBeUndefined();
    expect(subsetDifference({ labels: { size: '1k' } }, { labels: { size: '1000' } })).toBe(
      'labels.size: want "1k", have "1000"',
    );
  });

  it('reads null as "must be absent"', () => {
    expect(subsetDifference({ a: null }, {})).toBeUndefined();
    expect(subsetDifference({ a: null }, { a: 1 })).toBe('a: want null, have 1');
  });
});
