// The controller restarted with a different configuration (what a new ConfigMap and a rollout
// do): a RoleBinding whose role changed is re-created (roleRef cannot change in place), a policy
// dropped from the config is deleted, and nothing else is touched.
// It owns its control plane: the controller acts on every Profile of the cluster (it has no
// selector to keep to one file's), so another file's Profiles would be reconciled too.
import type { KubeClient, KubeObject } from '@kfx/kube-runtime';
import { startControlPlane, waitFor, type ControlPlane } from '@kfx/testenv';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  condition,
  createProfile,
  eventually,
  profileEvents,
  read,
  runController,
  testClient,
  writeRequests,
} from '../testing/harness.js';

let env: ControlPlane | undefined;
let client: KubeClient;

beforeAll(async () => {
  env = await startControlPlane();
  client = testClient(env);
});

afterAll(async () => {
  client.close();
  await env?.stop();
});

type RoleBinding = KubeObject & { roleRef?: { kind?: string; name?: string } };
const support = (clusterRole: string) => ({
  bindings: [
    { name: 'profile-support', clusterRole, subjects: [{ kind: 'Group', name: 'support' }] },
  ],
});

it('re-creates what cannot change in place and deletes what the new config drops', async () => {
  if (!env) throw new Error('no control plane');
  const first = await runController(env, { rbac: support('view'), 'network-policies': {} });
  await createProfile(client, 'team-c');
  await condition(client, 'team-c', (c) => c.reason === 'Reconciled', 'reconciled');
  const before = await read<RoleBinding>(client, 'roleBindings', 'profile-support', 'team-c');
  const quietPolicy = await read(client, 'networkPolicies', 'allow-egress-dns', 'team-c');
  expect(before?.roleRef?.name).toBe('view');
  await first.stop();

  const second = await runController(env, {
    rbac: support('edit'),
    'network-policies': { disable: ['allow-prometheus'] },
  });
  try {
    const after = await eventually<RoleBinding>(
      client,
      'roleBindings',
      'profile-support',
      'team-c',
      (b) => b?.roleRef?.name === 'edit',
      'the RoleBinding pointing at edit',
    );
    expect(after?.metadata?.uid).not.toBe(before?.metadata?.uid);
    await eventually(
      client,
      'networkPolicies',
      'allow-prometheus',
      'team-c',
      (p) => p === undefined,
      'allow-prometheus deleted',
    );
    // Untouched: same object, same resourceVersion.
    const dns = await read(client, 'networkPolicies', 'allow-egress-dns', 'team-c');
    expect(dns?.metadata?.resourceVersion).toBe(quietPolicy?.metadata?.resourceVersion);
    const events = await waitFor(
      async () => {
        const reasons = (await profileEvents(client, 'team-c')).map(
          (e) => `${e.reason ?? ''}: ${e.message ?? ''}`,
        );
        return reasons.some((r) => r.startsWith('Recreated')) &&
          reasons.some((r) => r.startsWith('Deleted'))
          ? { done: true, value: reasons }
          : { done: false, saw: reasons.join('\n') };
      },
      { description: 'Recreated and Deleted events' },
    );
    expect(events.join('\n')).toMatch(
      /Recreated: recreated RoleBinding team-c\/profile-support: .*roleRef/,
    );
    await condition(client, 'team-c', (c) => c.reason === 'Reconciled', 'reconciled again');
    expect(await writeRequests(second.client.registry)).toBeGreaterThan(0);
  } finally {
    await second.stop();
  }
});
