// Check `controller` on a real control plane: a kfx-controller release (its Deployment and
// configuration file as the chart makes them) whose Lease nobody renews is an error until a
// leader renews it; Profiles near maxProfiles are a warning until the capacity grows; a Profile
// waiting with ControllerFull is an error naming the capacity.
import { microTime } from '@kfx/kube-runtime/controller';
import { kubectl, useSharedControlPlane, type SharedControlPlane } from '@kfx/testenv';
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
let lease: string;
const profiles: string[] = [];

const release = (maxProfiles: number) => [
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'kfx-controller', namespace: env.namespace },
    data: {
      'config.yaml': `maxProfiles: ${maxProfiles}\nleaderElection:\n  leaseName: ${lease}\n`,
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'kfx-controller',
      namespace: env.namespace,
      labels: { 'app.kubernetes.io/name': 'kfx-controller' },
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'kfx-controller' } },
      template: {
        metadata: { labels: { app: 'kfx-controller' } },
        spec: {
          containers: [{ name: 'controller', image: 'x.invalid/c:1' }],
          volumes: [{ name: 'config', configMap: { name: 'kfx-controller' } }],
        },
      },
    },
  },
];

const renewed = (at: Date) => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: lease, namespace: env.namespace },
  spec: { holderIdentity: 'kfx-controller-0', leaseDurationSeconds: 15, renewTime: microTime(at) },
});

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'doctor-controller');
  doctor = adminDoctor(env);
  lease = `${env.namespace}-leader`;
  for (const suffix of ['a', 'b']) {
    profiles.push(`${env.namespace}-${suffix}`);
    await createProfile(env, `${env.namespace}-${suffix}`);
  }
});
afterAll(async () => {
  await deleteProfiles(env, profiles);
  doctor.close();
  await env.release();
});

const check = () => doctor.findings(['controller'], env.namespace);

describe('check controller', () => {
  it('is an error while no leader renews the Lease, and quiet once one does', async () => {
    await apply(env, ...release(100));
    const [none] = await check();
    expect(none).toMatchObject({
      code: 'controller.no-lease',
      severity: 'error',
      object: `Lease ${env.namespace}/${lease}`,
    });
    expect(none?.fix).toContain(
      `kubectl -n ${env.namespace} rollout restart deployment kfx-controller`,
    );
    await apply(env, renewed(new Date(Date.now() - 10 * 60_000)));
    expect(codes(await check())).toEqual(['controller.stale-lease']);
    await apply(env, renewed(new Date()));
    expect(await check()).toEqual([]);
  });

  it('warns near maxProfiles, and is an error for Profiles waiting with ControllerFull', async () => {
    await apply(env, renewed(new Date()), ...release(2));
    const [near] = await check();
    expect(near).toMatchObject({ code: 'controller.near-capacity', severity: 'warning' });
    expect(near?.message).toContain('2 Profiles, 100% of maxProfiles (2)');
    const waiting = profiles[1] ?? '';
    await kubectl(env.kubeConfig, [
      'patch',
      'profile',
      waiting,
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
              message: 'ControllerFull: kfx-controller reconciles at most 2 Profiles',
            },
          ],
        },
      }),
    ]);
    const [full] = await doctor.findings(['controller'], waiting);
    expect(full).toMatchObject({
      code: 'controller.full',
      severity: 'error',
      object: `Profile ${waiting}`,
    });
    expect(full?.fix).toContain('resources.limits.memory');
    await kubectl(env.kubeConfig, [
      'patch',
      'profile',
      waiting,
      '--subresource',
      'status',
      '--type',
      'merge',
      '-p',
      '{"status":{"conditions":[]}}',
    ]);
    await apply(env, ...release(100));
    expect(await check()).toEqual([]);
  });
});
