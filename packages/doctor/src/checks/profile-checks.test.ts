// The parts of check `profiles` that judge one object at a time, on the objects as Kubeflow
// and kfx-controller make them.
import { describe, expect, it } from 'vitest';
import type { LimitRange, Namespace, ResourceQuota, RoleBinding } from '../objects.js';
import { bindingFindings } from './profile-bindings.js';
import { quotaFindings } from './profile-quotas.js';
import { podSecurityFindings } from './pod-security.js';

const owner: RoleBinding = {
  metadata: {
    name: 'namespaceAdmin',
    namespace: 'team-a',
    annotations: { user: 'alice@example.com', role: 'admin' },
  },
  roleRef: { kind: 'ClusterRole', name: 'kubeflow-admin' },
  subjects: [{ kind: 'User', name: 'alice@example.com' }],
};

describe('KFAM bindings', () => {
  it("accepts the owner's binding as the upstream controller makes it", () => {
    expect(bindingFindings(owner)).toEqual([]);
  });

  it('says the dashboard hides the namespace from a user whose binding lacks the annotations, and how to annotate it', () => {
    const bare = { ...owner, metadata: { name: 'namespaceAdmin', namespace: 'team-a' } };
    const [finding] = bindingFindings(bare);
    expect(finding).toMatchObject({
      code: 'profiles.kfam-binding-unannotated',
      severity: 'warning',
    });
    expect(finding?.fix).toBe(
      'kubectl -n team-a annotate rolebinding namespaceAdmin user=alice@example.com role=admin',
    );
  });

  it('is an error for an annotated binding with two subjects: KFAM fails every listing', () => {
    const two = {
      ...owner,
      subjects: [...(owner.subjects ?? []), { kind: 'User', name: 'bob@example.com' }],
    };
    expect(bindingFindings(two)[0]).toMatchObject({
      code: 'profiles.kfam-binding-subjects',
      severity: 'error',
    });
  });

  it("leaves the ServiceAccounts' bindings (default-editor) and other roles alone", () => {
    const editor: RoleBinding = {
      metadata: { name: 'default-editor', namespace: 'team-a' },
      roleRef: { kind: 'ClusterRole', name: 'kubeflow-edit' },
      subjects: [{ kind: 'ServiceAccount', name: 'default-editor', namespace: 'team-a' }],
    };
    const other = {
      ...owner,
      metadata: { name: 'x', namespace: 'team-a' },
      roleRef: { kind: 'ClusterRole', name: 'edit' },
    };
    expect([...bindingFindings(editor), ...bindingFindings(other)]).toEqual([]);
  });
});

const quota = (hard: Record<string, string>): ResourceQuota => ({
  metadata: { name: 'kf-resource-quota', namespace: 'team-a' },
  spec: { hard },
});
const limits = (item: Record<string, Record<string, string>>): LimitRange => ({
  metadata: { name: 'default-container-limits', namespace: 'team-a' },
  spec: { limits: [{ type: 'Container', ...item }] },
});

describe('quota against the LimitRange', () => {
  it('is an error when the default a container gets is more than the whole quota, naming both values', () => {
    const [finding] = quotaFindings(
      'team-a',
      [quota({ 'limits.memory': '256Mi' })],
      [limits({ default: { memory: '1Gi' } })],
    );
    expect(finding).toMatchObject({ code: 'profiles.limitrange-above-quota', severity: 'error' });
    expect(finding?.message).toContain('256Mi');
    expect(finding?.fix).toContain('at least 1Gi');
  });

  it('compares quantities, not text (1000m is 1), and a defaultRequest falls back to the default', () => {
    expect(
      quotaFindings(
        'team-a',
        [quota({ 'limits.cpu': '1', 'requests.cpu': '1' })],
        [limits({ default: { cpu: '1000m' } })],
      ),
    ).toEqual([]);
    expect(
      quotaFindings(
        'team-a',
        [quota({ 'requests.cpu': '500m' })],
        [limits({ default: { cpu: '1' } })],
      )[0],
    ).toMatchObject({ code: 'profiles.limitrange-above-quota' });
  });

  it('warns when a quota limits memory and no LimitRange gives a default', () => {
    expect(quotaFindings('team-a', [quota({ 'limits.memory': '4Gi' })], [])[0]).toMatchObject({
      code: 'profiles.quota-without-default',
    });
  });
});

const namespace = (labels: Record<string, string>): Namespace => ({
  metadata: { name: 'team-a', labels },
});

describe('Pod Security against the Istio mode', () => {
  const sidecarBaseline = namespace({
    'istio-injection': 'enabled',
    'pod-security.kubernetes.io/enforce': 'baseline',
  });

  it("refuses sidecars without CNI under baseline: istio-init's capabilities", () => {
    expect(podSecurityFindings(sidecarBaseline, false, true)[0]).toMatchObject({
      code: 'profiles.pod-security-istio',
      severity: 'error',
    });
  });

  it('is fine with Istio CNI, in ambient mode, or without enforcement', () => {
    expect(podSecurityFindings(sidecarBaseline, true, true)).toEqual([]);
    expect(
      podSecurityFindings(
        namespace({
          'istio.io/rev': 'default',
          'istio.io/dataplane-mode': 'ambient',
          'pod-security.kubernetes.io/enforce': 'baseline',
        }),
        false,
        true,
      ),
    ).toEqual([]);
    expect(podSecurityFindings(namespace({ 'istio-injection': 'enabled' }), false, true)).toEqual(
      [],
    );
  });

  it("says when kfx's baseline label has no policy to enforce it", () => {
    expect(
      podSecurityFindings(
        namespace({ 'kfx.dev/pod-security-baseline': 'enforce' }),
        false,
        false,
      )[0],
    ).toMatchObject({ code: 'profiles.baseline-policy-missing' });
  });
});
