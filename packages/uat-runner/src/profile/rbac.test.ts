import type { V1ClusterRole, V1PolicyRule, V1RoleBinding } from '@kubernetes/client-node';
import type { KubeObject } from '@kfx/kube-runtime/client';
import { parseYamlDocuments } from '@kfx/testenv';
import { describe, expect, it } from 'vitest';
import { parseServiceAccount, rbacObjects, rbacYaml } from './rbac.js';
import { requesterIs } from './rbac-policy.js';

const kinds = (objects: KubeObject[]) =>
  objects.map((o) => `${o.kind ?? ''}/${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`);
const rulesOf = (object: KubeObject | undefined): V1PolicyRule[] =>
  (object as V1ClusterRole | undefined)?.rules ?? [];

describe('rbacObjects for a Profile run', () => {
  const objects = rbacObjects({ profile: 'uat', editorClusterRole: 'kubeflow-edit' });

  it('is a cluster role, its binding, the role for the test namespace and an admission policy', () => {
    expect(kinds(objects)).toEqual([
      'ClusterRole//kfx-uat-runner',
      'ClusterRoleBinding//kfx-uat-runner',
      'ClusterRole//kfx-uat-runner-in-namespace',
      'ValidatingAdmissionPolicy//kfx-uat-runner',
      'ValidatingAdmissionPolicyBinding//kfx-uat-runner',
    ]);
  });

  it('grants cluster-wide only what concerns the UAT Profile, by name where RBAC can', () => {
    const rules = rulesOf(objects[0]);
    const resourcesOf = rules.flatMap((rule) => rule.resources ?? []);
    expect(new Set(resourcesOf)).toEqual(
      new Set(['profiles', 'namespaces', 'rolebindings', 'clusterroles']),
    );
    for (const rule of rules) {
      // `create` cannot be limited by name in RBAC; every other verb is.
      if (!rule.verbs.every((verb) => verb === 'create')) {
        expect(rule.resourceNames, JSON.stringify(rule)).toBeDefined();
      }
    }
    expect(rules.find((rule) => rule.verbs.includes('bind'))?.resourceNames).toEqual([
      'kubeflow-edit',
      'kfx-uat-runner-in-namespace',
    ]);
    expect(
      rules.find((rule) => rule.resources?.includes('namespaces') && rule.resourceNames),
    ).toMatchObject({ resourceNames: ['uat'], verbs: ['get', 'delete'] });
  });

  it('grants no wildcard anywhere', () => {
    for (const object of objects) {
      for (const rule of rulesOf(object)) {
        expect(rule.verbs).not.toContain('*');
        expect(rule.resources).not.toContain('*');
      }
    }
  });

  it('has the policy apply to the runner alone', () => {
    expect(requesterIs({ kind: 'ServiceAccount', namespace: 'ci', name: 'uat' })).toBe(
      'request.userInfo.username == "system:serviceaccount:ci:uat"',
    );
    expect(requesterIs({ kind: 'User', name: 'ci "bot"' })).toBe(
      'request.userInfo.username == "ci \\"bot\\""',
    );
    expect(requesterIs({ kind: 'Group', name: 'ci-bots' })).toBe(
      '"ci-bots" in request.userInfo.groups',
    );
  });
});

describe('rbacObjects for an existing namespace', () => {
  it('is a Role and a RoleBinding in it, nothing cluster-wide', () => {
    const objects = rbacObjects({ namespace: 'ci-tests', subject: { kind: 'User', name: 'bot' } });
    expect(kinds(objects)).toEqual([
      'Role/ci-tests/kfx-uat-runner',
      'RoleBinding/ci-tests/kfx-uat-runner',
    ]);
    expect((objects[1] as V1RoleBinding).subjects).toEqual([
      { kind: 'User', name: 'bot', apiGroup: 'rbac.authorization.k8s.io' },
    ]);
    expect(rulesOf(objects[0]).some((rule) => rule.resources?.includes('rolebindings'))).toBe(
      false,
    );
  });

  it('refuses a namespace and a Profile at once, and names that are no names', () => {
    expect(() => rbacObjects({ namespace: 'a', profile: 'b' })).toThrow(
      '--profile and -n/--namespace exclude each other',
    );
    expect(() => rbacObjects({ profile: 'Not_A_Name' })).toThrow(
      '--profile: "Not_A_Name" is not a valid name',
    );
  });
});

describe('rbacYaml', () => {
  it('is YAML documents kubectl can apply, binding the default service account', () => {
    const docs = parseYamlDocuments<KubeObject & { subjects?: unknown[] }>(
      rbacYaml({ name: 'uat' }),
      'rbacYaml',
    );
    expect(docs.map((d) => d.kind)).toEqual([
      'ClusterRole',
      'ClusterRoleBinding',
      'ClusterRole',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
    ]);
    expect(docs[1]?.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'kfx-uat', namespace: 'kfx-system' },
    ]);
  });

  it('says that the Profile objects need Kubernetes 1.30, and the namespace ones need nothing', () => {
    expect(rbacYaml().split('\n').slice(0, 4)).toEqual([
      '# For `kfx uat run` with a Profile. Needs Kubernetes 1.30 or later: the ValidatingAdmissionPolicy',
      '# below is what keeps the cluster-wide rights of these roles to one Profile. Where the cluster',
      '# refuses it, delete the other objects (kubectl delete -f) and use `kfx uat rbac -n NAMESPACE`;',
      '# `kfx uat run` refuses Profile runs there.',
    ]);
    expect(rbacYaml({ namespace: 'ci' })).not.toContain('#');
  });
});

describe('parseServiceAccount', () => {
  it('reads NAMESPACE:NAME and NAMESPACE/NAME', () => {
    expect(parseServiceAccount('ci:runner')).toEqual({
      kind: 'ServiceAccount',
      namespace: 'ci',
      name: 'runner',
    });
    expect(parseServiceAccount('ci/runner')).toMatchObject({ namespace: 'ci', name: 'runner' });
    expect(() => parseServiceAccount('runner')).toThrow(
      '--service-account: expected NAMESPACE:NAME, found "runner"',
    );
  });
});
