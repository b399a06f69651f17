// Check `profiles` on a real control plane with Kubeflow's Profile CRD: each problem a Profile
// or its namespace can have is found with the fix, the fix is run as printed (a shell word list
// where it is one command), and the finding goes.
import { kubectl, runKubectl, useSharedControlPlane, type SharedControlPlane } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  adminDoctor,
  apply,
  codes,
  createProfile,
  deleteProfiles,
  type Doctor,
} from '../testing/cluster.js';

let env: SharedControlPlane;
let doctor: Doctor;
const profiles: string[] = [];

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'doctor-profiles');
  doctor = adminDoctor(env);
});
afterAll(async () => {
  await deleteProfiles(env, profiles);
  doctor.close();
  await env.release();
});

async function profile(suffix: string, options: Parameters<typeof createProfile>[2] = {}) {
  const name = `${env.namespace}-${suffix}`;
  profiles.push(name);
  await createProfile(env, name, options);
  return name;
}

const check = (about: string) => doctor.findings(['profiles'], about);

/** Runs a fix that is one kubectl command, word for word (single-quoted words kept whole). */
async function runFix(fix: string | undefined): Promise<void> {
  const words = [...(fix ?? '').matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
  expect(words[0]).toBe('kubectl');
  const run = await runKubectl(env.kubeConfig, words.slice(1));
  expect(run.code, run.stderr).toBe(0);
}

describe('check profiles', () => {
  it("finds a Profile held by upstream's profile-finalizer with no upstream controller, and the patch removes it", async () => {
    const name = await profile('held', { finalizers: ['profile-finalizer'] });
    await kubectl(env.kubeConfig, ['delete', 'profile', name, '--wait=false']);
    const [held] = await check(name);
    expect(held).toMatchObject({
      code: 'profiles.stuck-finalizer',
      severity: 'error',
      object: `Profile ${name}`,
    });
    expect(held?.message).toContain("only Kubeflow's profile controller removes, and none runs");
    await runFix(held?.fix);
    expect((await runKubectl(env.kubeConfig, ['get', 'profile', name])).code).not.toBe(0);
    expect(await check(name)).toEqual([]);
  });

  it("finds a binding to a kubeflow role without KFAM's annotations, and the annotate command fixes it", async () => {
    const name = await profile('kfam');
    await apply(env, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'namespaceAdmin', namespace: name },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'kubeflow-admin',
      },
      subjects: [
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice@example.com' },
      ],
    });
    const [bare] = await check(name);
    expect(bare).toMatchObject({ code: 'profiles.kfam-binding-unannotated', severity: 'warning' });
    expect(bare?.fix).toBe(
      `kubectl -n ${name} annotate rolebinding namespaceAdmin user=alice@example.com role=admin`,
    );
    await runFix(bare?.fix);
    expect(await check(name)).toEqual([]);
  });

  it("finds a LimitRange default above the quota's total, and raising the quota fixes it", async () => {
    const name = await profile('quota');
    await apply(
      env,
      {
        apiVersion: 'v1',
        kind: 'ResourceQuota',
        metadata: { name: 'kf-resource-quota', namespace: name },
        spec: { hard: { 'limits.memory': '256Mi', 'limits.cpu': '4' } },
      },
      {
        apiVersion: 'v1',
        kind: 'LimitRange',
        metadata: { name: 'default-container-limits', namespace: name },
        spec: { limits: [{ type: 'Container', default: { memory: '1Gi', cpu: '250m' } }] },
      },
    );
    const [above] = await check(name);
    expect(above).toMatchObject({ code: 'profiles.limitrange-above-quota', severity: 'error' });
    expect(above?.message).toContain('limits.memory 256Mi in all, less than the 1Gi');
    // The API server itself refuses a Pod that sets no memory there, as the finding says.
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: name },
      spec: { containers: [{ name: 'c', image: 'x.invalid/c:1' }] },
    };
    const refused = await runKubectl(
      env.kubeConfig,
      ['create', '--dry-run=server', '-f', '-'],
      JSON.stringify(pod),
    );
    expect(refused.stderr).toContain('exceeded quota');
    await kubectl(env.kubeConfig, [
      '-n',
      name,
      'patch',
      'resourcequota',
      'kf-resource-quota',
      '--type',
      'merge',
      '-p',
      '{"spec":{"hard":{"limits.memory":"2Gi"}}}',
    ]);
    expect(await check(name)).toEqual([]);
  });

  it('finds Pod Security baseline on Istio sidecars without Istio CNI, and the label fix clears it', async () => {
    const name = await profile('istio', {
      labels: { 'istio-injection': 'enabled', 'pod-security.kubernetes.io/enforce': 'baseline' },
    });
    const [istio] = await check(name);
    expect(istio).toMatchObject({ code: 'profiles.pod-security-istio', severity: 'error' });
    await kubectl(env.kubeConfig, [
      'label',
      'namespace',
      name,
      'pod-security.kubernetes.io/enforce-',
    ]);
    expect(codes(await check(name))).toEqual([]);
  });

  it('finds a Profile kfx-controller refused, with the reason from its condition', async () => {
    const name = await profile('refused');
    // A kfx-controller is installed (its Deployment), so a Profile without a condition is news.
    await apply(env, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'kfx-controller',
        namespace: env.namespace,
        labels: { 'app.kubernetes.io/name': 'kfx-controller' },
      },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'c' } },
        template: {
          metadata: { labels: { app: 'c' } },
          spec: { containers: [{ name: 'c', image: 'x.invalid/c:1' }] },
        },
      },
    });
    try {
      expect(codes(await check(name))).toEqual(['profiles.not-reconciled']);
      await kubectl(env.kubeConfig, [
        'patch',
        'profile',
        name,
        '--subresource',
        'status',
        '--type',
        'merge',
        '-p',
        JSON.stringify({
          status: {
            conditions: [
              {
                type: 'KfxReconciled',
                status: 'False',
                message: 'NamespaceReserved: the namespace is protected',
              },
            ],
          },
        }),
      ]);
      const [refused] = await check(name);
      expect(refused).toMatchObject({ code: 'profiles.not-ready', severity: 'error' });
      expect(refused?.message).toBe(
        'not reconciled (NamespaceReserved): the namespace is protected',
      );
      await kubectl(env.kubeConfig, [
        'patch',
        'profile',
        name,
        '--subresource',
        'status',
        '--type',
        'merge',
        '-p',
        JSON.stringify({
          status: {
            conditions: [
              { type: 'KfxReconciled', status: 'True', message: 'Reconciled: applied: quotas' },
            ],
          },
        }),
      ]);
      expect(await check(name)).toEqual([]);
    } finally {
      await kubectl(env.kubeConfig, [
        '-n',
        env.namespace,
        'delete',
        'deployment',
        'kfx-controller',
        '--ignore-not-found',
      ]);
    }
  });
});
