// A Profile is a claim anyone allowed to create one can make, with a name of their choosing. On
// a real control plane (with controller-manager, so garbage collection runs): a Profile named
// like an existing namespace, or like a reserved one, changes nothing in it, binds its owner to
// nothing, and deleting it deletes nothing; a namespace an administrator annotated for adoption
// is managed without being owned; objects outside the Profile's namespace are never taken over.
// It owns its control plane: its Profiles are named after namespaces that exist cluster-wide
// (kube-system, a protected kfx-system, shared, legacy, victim-ns), which another file on the
// same plane could hold or need; a selector would keep its controller to its Profiles, not
// these names to it.
import { resources, type KubeClient } from '@kfx/kube-runtime/client';
import { startControlPlane, waitFor, type ControlPlane } from '@kfx/testenv';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADOPT_ANNOTATION, DEFAULT_PROTECTED_NAMESPACES } from './namespace-claim.js';
import {
  allowed,
  condition,
  createProfile,
  eventMessages,
  eventually,
  read,
  runController,
  testClient,
  type Running,
} from '../testing/harness.js';

let env: ControlPlane | undefined;
let running: Running | undefined;
let client: KubeClient;

const sharedTemplate = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: "{{ profile.name }}-settings"
  namespace: shared
data:
  owner: "{{ owner.name }}"
`;

beforeAll(async () => {
  env = await startControlPlane({ components: ['controller-manager'] });
  client = testClient(env);
  await namespace('shared');
  // What the probe enabled: every reconciler that writes into the namespace or binds in it.
  running = await runController(
    env,
    {
      namespace: {},
      quotas: {},
      limitrange: {},
      rbac: { bindings: [{ name: 'namespaceAdmin', clusterRole: 'admin', owner: true }] },
      'network-policies': {},
      'proxy-config': { httpProxy: 'http://proxy.example.com:3128', noProxy: ['.svc'] },
      templates: { inline: [{ name: 'shared.yaml', content: sharedTemplate }] },
    },
    { protectedNamespaces: [...DEFAULT_PROTECTED_NAMESPACES, 'kfx-system'] },
  );
});

afterAll(async () => {
  await running?.stop();
  client.close();
  await env?.stop();
});

const namespace = (name: string, annotations: Record<string, string> = {}) =>
  client.create(resources.namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, annotations },
  });

const configMap = (namespace: string, name: string) =>
  client.create(resources.configMaps, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace },
    data: { precious: 'yes' },
  });

/** Everything kfx manages in a namespace, by kind. */
async function kfxObjectsIn(namespace: string): Promise<string[]> {
  const kinds = [
    resources.resourceQuotas,
    resources.limitRanges,
    resources.roleBindings,
    resources.networkPolicies,
    resources.configMaps,
    resources.serviceAccounts,
  ];
  const found: string[] = [];
  for (const ref of kinds) {
    const list = await client.list(ref, {
      namespace,
      labelSelector: 'app.kubernetes.io/managed-by=kfx',
    });
    for (const item of list.items) found.push(`${ref.kind} ${item.metadata?.name ?? ''}`);
  }
  return found;
}

async function deleteProfile(name: string): Promise<void> {
  await client.delete(resources.profiles, name);
  await waitFor(
    async () =>
      (await read(client, 'profiles', name))
        ? { done: false, saw: `Profile ${name} still there` }
        : { done: true, value: undefined },
    { description: `Profile ${name} to be deleted`, timeoutMs: 60_000 },
  );
}

/** Waits until garbage collection has removed the namespace (or begun to). */
const namespaceGoing = (name: string) =>
  eventually(
    client,
    'namespaces',
    name,
    undefined,
    (ns) => ns === undefined || Boolean(ns.metadata?.deletionTimestamp),
    `namespace ${name} deleted with its Profile`,
  );

describe('a Profile named like an existing namespace', () => {
  it('changes nothing in it, binds nothing, and deleting the Profile deletes nothing', async () => {
    await namespace('victim-ns');
    await configMap('victim-ns', 'data');
    // A Profile whose namespace kfx creates, to show that the controller and GC are at work.
    await createProfile(client, 'team-own', {}, { namespace: false });
    await createProfile(
      client,
      'victim-ns',
      {},
      {
        namespace: false,
        owner: 'attacker@example.com',
      },
    );

    await condition(client, 'team-own', (c) => c.reason === 'Reconciled', 'reconciled');
    const refused = await condition(client, 'victim-ns', () => true, 'a condition');
    // Soft: the deletion half below must be seen to fail too where the take-over happened.
    expect.soft(refused).toMatchObject({ status: 'False', reason: 'NamespaceNotOwned' });
    expect
      .soft(refused.message)
      .toContain(
        'namespace victim-ns already exists and was not created for this Profile (owner: none recorded); kfx changes nothing in it',
      );
    const victim = await read(client, 'namespaces', 'victim-ns');
    expect.soft(victim?.metadata?.ownerReferences ?? []).toEqual([]);
    expect.soft(victim?.metadata?.labels?.['app.kubernetes.io/managed-by']).toBeUndefined();
    expect.soft(await kfxObjectsIn('victim-ns')).toEqual([]);
    expect
      .soft(await allowed(client, 'attacker@example.com', 'delete', 'configmaps', 'victim-ns'))
      .toBe(false);
    // The other Profile got everything, in a namespace it owns.
    const own = await read(client, 'namespaces', 'team-own');
    expect(own?.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Profile',
      name: 'team-own',
    });
    expect(await kfxObjectsIn('team-own')).toEqual(
      expect.arrayContaining(['ResourceQuota quotas', 'RoleBinding namespaceAdmin']),
    );
    expect(await allowed(client, 'team-own@example.com', 'delete', 'configmaps', 'team-own')).toBe(
      true,
    );

    await deleteProfile('victim-ns');
    await deleteProfile('team-own');
    await namespaceGoing('team-own');
    const after = await read(client, 'namespaces', 'victim-ns');
    expect(after?.metadata?.deletionTimestamp).toBeUndefined();
    expect((await read<V1ConfigMap>(client, 'configMaps', 'data', 'victim-ns'))?.data).toEqual({
      precious: 'yes',
    });
    await eventMessages(
      client,
      'victim-ns',
      'NamespaceNotOwned',
      /namespace victim-ns already exists and was not created for this Profile \(owner: none recorded\)/,
    );
  });
});

describe('a Profile named like a reserved namespace', () => {
  it('gets nothing in kube-system, and a protected namespace that does not exist is not created', async () => {
    await createProfile(client, 'kube-system', {}, { namespace: false });
    await createProfile(client, 'kfx-system', {}, { namespace: false });
    const system = await condition(
      client,
      'kube-system',
      (c) => c.reason === 'NamespaceReserved',
      'refused',
    );
    expect(system.message).toBe(
      'NamespaceReserved: namespace kube-system is reserved (protected namespaces: kube-*); kfx changes nothing in it for a Profile',
    );
    await condition(client, 'kfx-system', (c) => c.reason === 'NamespaceReserved', 'refused');
    await eventMessages(client, 'kube-system', 'NamespaceReserved', /namespace kube-system/);
    expect(await kfxObjectsIn('kube-system')).toEqual([]);
    expect(await read(client, 'namespaces', 'kfx-system')).toBeUndefined();
    expect(await allowed(client, 'kube-system@example.com', 'get', 'secrets', 'kube-system')).toBe(
      false,
    );
  });
});

describe('a namespace an administrator annotated for adoption', () => {
  it('is managed once annotated for the Profile’s owner, never owned, and outlives the Profile', async () => {
    await namespace('legacy', { [ADOPT_ANNOTATION]: 'someone-else@example.com' });
    await configMap('legacy', 'data');
    await createProfile(client, 'legacy', {}, { namespace: false, owner: 'lead@example.com' });
    const refused = await condition(
      client,
      'legacy',
      (c) => c.reason === 'NamespaceNotOwned',
      'refused: the annotation names another owner',
    );
    expect(refused.message).toContain(
      'its profiles.kfx.dev/adopt annotation names "someone-else@example.com", not this Profile\'s owner "lead@example.com"',
    );
    expect(await kfxObjectsIn('legacy')).toEqual([]);

    await client.patch(resources.namespaces, 'legacy', {
      metadata: { annotations: { [ADOPT_ANNOTATION]: 'lead@example.com' } },
    });
    await condition(client, 'legacy', (c) => c.reason === 'Reconciled', 'adopted');
    expect(await kfxObjectsIn('legacy')).toEqual(
      expect.arrayContaining(['ResourceQuota quotas', 'RoleBinding namespaceAdmin']),
    );
    const adopted = await read(client, 'namespaces', 'legacy');
    expect(adopted?.metadata?.labels?.['app.kubernetes.io/part-of']).toBe('kubeflow-profile');
    expect(adopted?.metadata?.ownerReferences ?? []).toEqual([]);

    // Deleting the Profile takes what kfx made in the namespace, not the namespace.
    await deleteProfile('legacy');
    await eventually(
      client,
      'resourceQuotas',
      'quotas',
      'legacy',
      (q) => q === undefined,
      'the quota garbage-collected',
    );
    expect(
      (await read(client, 'namespaces', 'legacy'))?.metadata?.deletionTimestamp,
    ).toBeUndefined();
    expect(await read(client, 'configMaps', 'data', 'legacy')).toBeDefined();
  });
});

describe('an object a template puts outside the Profile’s namespace', () => {
  it('is created when absent, and left alone when someone else’s has that name', async () => {
    await configMap('shared', 'taken-settings');
    await createProfile(client, 'free', {}, { namespace: false });
    await createProfile(client, 'taken', {}, { namespace: false });
    await eventually(
      client,
      'configMaps',
      'free-settings',
      'shared',
      (c) => c?.metadata?.ownerReferences?.[0]?.name === 'free',
      'the template object made for Profile free',
    );
    const failed = await condition(
      client,
      'taken',
      (c) => c.reason === 'ReconcileFailed',
      'the template refused',
    );
    expect(failed.message).toContain(
      'templates: ConfigMap shared/taken-settings: ConfigMap shared/taken-settings already exists and kfx did not make it for Profile taken: it is left alone',
    );
    const kept = await read<V1ConfigMap>(client, 'configMaps', 'taken-settings', 'shared');
    expect(kept?.metadata?.ownerReferences).toBeUndefined();
    expect(kept?.data).toEqual({ precious: 'yes' });
  });
});
