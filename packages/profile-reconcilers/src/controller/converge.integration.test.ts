// Profiles created, labelled, unlabelled and deleted on a real control plane (with
// controller-manager for garbage collection): the objects follow, and the Profile says so.
import type { V1ResourceQuota } from '@kubernetes/client-node';
import { startControlPlane, waitFor, type ControlPlane } from '@kfx/testenv';
import { resources, type KubeClient, type KubeObject } from '@kfx/kube-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Profile } from '../profile.js';
import {
  createProfile,
  eventually,
  read,
  runController,
  testClient,
  type Running,
} from '../testing/harness.js';

let env: ControlPlane | undefined;
let running: Running | undefined;
let client: KubeClient;

beforeAll(async () => {
  env = await startControlPlane({ components: ['controller-manager'] });
  client = testClient(env);
  running = await runController(env, {
    quotas: {},
    limitrange: {},
    'network-policies': { disable: ['allow-prometheus'] },
  });
});

afterAll(async () => {
  await running?.stop();
  client.close();
  await env?.stop();
});

const hard = (q: KubeObject | undefined) => (q as V1ResourceQuota | undefined)?.spec?.hard ?? {};

describe('profile controller', () => {
  it('creates the quota, limit range and network policies of a new Profile, owned by it', async () => {
    const profile = await createProfile(client, 'team-a');
    const quota = await eventually<V1ResourceQuota>(
      client,
      'resourceQuotas',
      'quotas',
      'team-a',
      (q) => q !== undefined,
      'ResourceQuota team-a/quotas',
    );
    expect(quota?.spec?.hard?.['requests.cpu']).toBe('70');
    expect(quota?.spec?.hard?.['requests.nvidia.com/gpu']).toBe('2');
    expect(quota?.metadata?.labels?.['app.kubernetes.io/managed-by']).toBe('kfx');
    expect(quota?.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Profile',
      name: 'team-a',
      uid: profile.metadata?.uid,
    });
    await eventually(
      client,
      'limitRanges',
      'default-container-limits',
      'team-a',
      (l) => l !== undefined,
      'LimitRange',
    );
    await eventually(
      client,
      'networkPolicies',
      'default-deny',
      'team-a',
      (p) => p !== undefined,
      'NetworkPolicy default-deny',
    );
    const condition = await waitFor(
      async () => {
        const p = await read<Profile>(client, 'profiles', 'team-a');
        const c = p?.status?.conditions?.find((x) => x.type === 'KfxReconciled');
        return c ? { done: true, value: c } : { done: false, saw: JSON.stringify(p?.status) };
      },
      { description: 'condition' },
    );
    expect(condition).toMatchObject({ status: 'True', reason: 'Reconciled' });
    expect(condition.message).toContain('quotas');
  });

  it('applies label overrides, reports a malformed one, and goes back when unlabelled', async () => {
    await client.patch(resources.profiles, 'team-a', {
      metadata: {
        labels: { 'quotas.kfx.dev/requests.cpu': '8', 'quotas.kfx.dev/limits.cpu': 'lots' },
      },
    });
    await eventually(
      client,
      'resourceQuotas',
      'quotas',
      'team-a',
      (q) => hard(q)['requests.cpu'] === '8',
      'requests.cpu 8',
    );
    await client.patch(resources.profiles, 'team-a', {
      metadata: {
        labels: { 'quotas.kfx.dev/requests.cpu': null, 'quotas.kfx.dev/limits.cpu': null },
      },
    });
    await eventually(
      client,
      'resourceQuotas',
      'quotas',
      'team-a',
      (q) => hard(q)['requests.cpu'] === '70',
      'requests.cpu back to 70',
    );
  });
});
