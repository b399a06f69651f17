import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { parseServiceAccount, rbacObjects, rbacYaml } from './rbac.js';

describe('rbacObjects', () => {
  it('lets the runner bind only the editor role it names', () => {
    const [role] = rbacObjects({ editorClusterRole: 'kubeflow-edit' });
    const bind = role.rules?.find((rule) => rule.verbs.includes('bind'));
    expect(bind).toMatchObject({ resources: ['clusterroles'], resourceNames: ['kubeflow-edit'] });
  });

  it('grants no wildcard and nothing on secrets', () => {
    const [role] = rbacObjects();
    for (const rule of role.rules ?? []) {
      expect(rule.verbs).not.toContain('*');
      expect(rule.resources).not.toContain('*');
      expect(rule.resources).not.toContain('secrets');
    }
  });

  it('binds a user, a group or a service account', () => {
    expect(rbacObjects({ subject: { kind: 'User', name: 'ci-bot' } })[1].subjects).toEqual([
      { kind: 'User', name: 'ci-bot', apiGroup: 'rbac.authorization.k8s.io' },
    ]);
    expect(rbacObjects()[1].subjects).toEqual([
      { kind: 'ServiceAccount', name: 'kfx-uat', namespace: 'kfx-system' },
    ]);
  });
});

describe('rbacYaml', () => {
  it('is two YAML documents kubectl can apply', () => {
    const docs = parseAllDocuments(rbacYaml({ name: 'uat' })).map(
      (d) => d.toJS() as { kind: string; metadata: { name: string } },
    );
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([
      'ClusterRole/uat',
      'ClusterRoleBinding/uat',
    ]);
    expect(parse(rbacYaml().split('---\n')[1] ?? '')).toMatchObject({
      roleRef: { name: 'kfx-uat-runner' },
    });
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
