import { describe, expect, it } from 'vitest';
import { enableBuiltInReconcilers } from './built-in.js';
import { ConfigError } from '@kfx/kube-runtime/exit';

const problemsOf = (fn: () => unknown): readonly string[] => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe('enableBuiltInReconcilers', () => {
  it('runs quotas and limitrange when nothing is configured', () => {
    expect(enableBuiltInReconcilers().map((r) => r.name)).toEqual(['quotas', 'limitrange']);
  });

  it('enables a key with no value (YAML null) with its defaults, and skips one set to false', () => {
    const enabled = enableBuiltInReconcilers({ limitrange: null, quotas: false, namespace: {} });
    expect(enabled.map((r) => r.name)).toEqual(['namespace', 'limitrange']);
  });

  it('declares the kinds each reconciler makes, for watches and RBAC', () => {
    const enabled = enableBuiltInReconcilers({
      quotas: {},
      rbac: { bindings: [{ name: 'x', clusterRole: 'view', owner: true }] },
    });
    expect(enabled.flatMap((r) => r.kinds)).toEqual([
      { apiVersion: 'v1', kind: 'ResourceQuota' },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' },
    ]);
  });

  it('names every bad key at once, with its full path', () => {
    const problems = problemsOf(() =>
      enableBuiltInReconcilers({
        quota: {},
        quotas: { defaults: { 'requests.cpu': 'lots' }, labelprefix: 'x' },
        limitrange: { name: 'Not_A_Name' },
      }),
    );
    expect(problems).toEqual([
      'reconcilers.quota: unknown reconciler (known: namespace, quotas, profile-quota, limitrange, rbac, network-policies, proxy-config, secrets, templates)',
      'reconcilers.quotas.defaults["requests.cpu"]: expected a non-negative Kubernetes quantity (e.g. 4, 500m, 16Gi)',
      'reconcilers.quotas.labelprefix: unknown key',
      'reconcilers.limitrange.name: expected a lower-case Kubernetes object name (a-z, 0-9, "-", ".")',
    ]);
  });

  it('refuses a negative quantity, as text or as a number', () => {
    const problems = problemsOf(() =>
      enableBuiltInReconcilers({
        quotas: { defaults: { 'requests.cpu': '-1', 'requests.memory': -2, pods: '1e2' } },
        limitrange: { min: { cpu: '-100m' } },
      }),
    );
    expect(problems).toEqual([
      'reconcilers.quotas.defaults["requests.cpu"]: expected a non-negative Kubernetes quantity (e.g. 4, 500m, 16Gi)',
      'reconcilers.quotas.defaults["requests.memory"]: expected a non-negative Kubernetes quantity (e.g. 4, 500m, 16Gi)',
      'reconcilers.limitrange.min.cpu: expected a non-negative Kubernetes quantity (e.g. 4, 500m, 16Gi)',
    ]);
  });

  it('refuses a mapping that enables nothing, or is not a mapping', () => {
    expect(problemsOf(() => enableBuiltInReconcilers({ quotas: false }))).toEqual([
      'reconcilers: no reconciler is enabled',
    ]);
    expect(problemsOf(() => enableBuiltInReconcilers(['quotas']))[0]).toMatch(
      /^reconcilers: expected a mapping/,
    );
  });
});
