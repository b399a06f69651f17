// The controller restarted with a different configuration (what a new ConfigMap and a rollout
// do): a RoleBinding whose role changed is re-created (roleRef cannot change in place), a policy
// dropped from the config is deleted, and nothing else is touched.
// On the package's shared plane: both controllers select this file's Profile only.
import { resources, type KubeClient, type KubeObject } from '@kfx/kube-runtime/client';
import { useSharedControlPlane, waitFor, type SharedControlPlane } from '@kfx/testenv';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import {
  condition,
  createProfile,
  eventually,
  fileProfiles,
  profileEvents,
  read,
  runController,
  testClient,
  writeRequests,
  type FileProfiles,
} from '../testing/harness.js';

let env: SharedControlPlane | undefined;
let client: KubeClient;
let file: FileProfiles;
let team = '';

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'config-change');
  client = testClient(env);
  file = fileProfiles(env);
  team = file.name('c');
});

afterAll(async () => {
  if (team) await client.delete(resources.profiles, team).catch(() => undefined);
  client.close();
  await env?.release();
});

type RoleBinding = KubeObject & { roleRef?: { kind?: string; name?: string } };
const support = (clusterRole: string) => ({
  bindings: [
    { name: 'profile-support', clusterRole, subjects: [{ kind: 'Group', name: 'support' }] },
  ],
});

it('re-creates what cannot change in place and deletes what the new config drops', async () => {
  if (!env) throw new Error('no control plane');
  const first = await runController(
    env,
    { rbac: support('view'), 'network-policies': {} },
    { profileSelector: file.selector },
  );
  await createProfile(client, team, file.labels);
  await condition(client, team, (c) => c.reason === 'Reconciled', 'reconciled');
  const before = await read<RoleBinding>(client, 'roleBindings', 'profile-support', team);
  const quietPolicy = await read(client, 'networkPolicies', 'allow-egress-dns', team);
  expect(before?.roleRef?.name).toBe('view');
  await first.stop();

  const second = await runController(
    env,
    { rbac: support('edit'), 'network-policies': { disable: ['allow-prometheus'] } },
    { profileSelector: file.selector },
  );
  try {
    const after = await eventually<RoleBinding>(
      client,
      'roleBindings',
      'profile-support',
      team,
      (b) => b?.roleRef?.name === 'edit',
      'the RoleBinding pointing at edit',
    );
    expect(after?.metadata?.uid).not.toBe(before?.metadata?.uid);
    await eventually(
      client,
      'networkPolicies',
      'allow-prometheus',
      team,
      (p) => p === undefined,
      'allow-prometheus deleted',
    );
    // Untouched: same object, same resourceVersion.
    const dns = await read(client, 'networkPolicies', 'allow-egress-dns', team);
    expect(dns?.metadata?.resourceVersion).toBe(quietPolicy?.metadata?.resourceVersion);
    const events = await waitFor(
      async () => {
        const reasons = (await profileEvents(client, team)).map(
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
      new RegExp(`Recreated: recreated RoleBinding ${team}/profile-support: .*roleRef`),
    );
    await condition(client, team, (c) => c.reason === 'Reconciled', 'reconciled again');
    expect(await writeRequests(second.client.registry)).toBeGreaterThan(0);
  } finally {
    await second.stop();
  }
});
