// Profiles created, labelled, unlabelled and deleted on a real control plane (with
// controller-manager for garbage collection): the objects follow, managed objects that are
// deleted or edited come back, and each Profile's status and Events say what happened.
// It owns its control plane: the controller acts on every Profile of the cluster (it has no
// selector to keep to one file's), so another file's Profiles would be reconciled too.
import { resources, type KubeClient, type KubeObject } from '@kfx/kube-runtime';
import { profileNamespace, startControlPlane, waitFor, type ControlPlane } from '@kfx/testenv';
import type { V1ConfigMap, V1ResourceQuota, V1RoleBinding } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  condition,
  counterTotal,
  createProfile,
  eventMessages,
  eventually,
  profileEvents,
  read,
  runController,
  testClient,
  writeRequests,
  type Running,
} from '../testing/harness.js';

let env: ControlPlane | undefined;
let running: Running | undefined;
let client: KubeClient;

const ownerTemplate = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: team-{{ profile.labels["team"] | default "none" }}
data:
  owner: "{{ owner.name }}"
`;

beforeAll(async () => {
  env = await startControlPlane({ components: ['controller-manager'] });
  client = testClient(env);
  running = await runController(
    env,
    {
      quotas: {},
      limitrange: {},
      'network-policies': {},
      rbac: {
        bindings: [
          {
            name: 'profile-support',
            clusterRole: 'profile-support',
            subjects: [{ kind: 'Group', name: 'support' }],
          },
          { name: 'namespaceAdmin', clusterRole: 'kubeflow-admin', owner: true },
        ],
      },
      'proxy-config': {
        httpProxy: 'http://proxy.example.com:3128',
        noProxy: ['.svc', 'localhost'],
      },
      templates: { inline: [{ name: 'owner.yaml', content: ownerTemplate }] },
    },
    { resyncSeconds: 2 },
  );
});

afterAll(async () => {
  await running?.stop();
  client.close();
  await env?.stop();
});

const hard = (q: KubeObject | undefined) => (q as V1ResourceQuota | undefined)?.spec?.hard ?? {};
const label = (name: string, labels: Record<string, string | null>) =>
  client.patch(resources.profiles, name, { metadata: { labels } });

describe('a new Profile', () => {
  it('gets every configured object, owned by it and labelled as kfx-managed', async () => {
    const profile = await createProfile(client, 'team-a');
    const quota = await eventually<V1ResourceQuota>(
      client,
      'resourceQuotas',
      'quotas',
      'team-a',
      (q) => q !== undefined,
      'ResourceQuota team-a/quotas',
    );
    expect(hard(quota)).toMatchObject({
      'requests.cpu': '70',
      'requests.memory': '368G',
      'requests.nvidia.com/gpu': '2',
    });
    expect(quota?.metadata?.labels).toMatchObject({
      'app.kubernetes.io/managed-by': 'kfx',
      'kfx.dev/reconciler': 'quotas',
    });
    expect(quota?.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'kubeflow.org/v1',
        kind: 'Profile',
        name: 'team-a',
        uid: profile.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    await condition(client, 'team-a', (c) => c.reason === 'Reconciled', 'reconciled');

    expect(await read(client, 'limitRanges', 'default-container-limits', 'team-a')).toBeDefined();
    const policies = await client.list(resources.networkPolicies, { namespace: 'team-a' });
    expect(policies.items.map((p) => p.metadata?.name)).toContain('allow-egress-dns');
    expect(policies.items).toHaveLength(11);
    const admin = await read<V1RoleBinding>(client, 'roleBindings', 'namespaceAdmin', 'team-a');
    expect(admin?.subjects).toEqual([
      { kind: 'User', name: 'team-a@example.com', apiGroup: 'rbac.authorization.k8s.io' },
    ]);
    const proxy = await read<V1ConfigMap>(client, 'configMaps', 'kfx-proxy', 'team-a');
    expect(proxy?.data).toMatchObject({
      http_proxy: 'http://proxy.example.com:3128',
      NO_PROXY: '.svc,localhost',
    });
    const templated = await read<V1ConfigMap>(client, 'configMaps', 'team-none', 'team-a');
    expect(templated?.data).toEqual({ owner: 'team-a@example.com' });
  });

  it('says in its status which reconcilers applied', async () => {
    const c = await condition(client, 'team-a', (x) => x.status === 'True', 'True');
    expect(c.message).toBe(
      'applied: quotas, limitrange, rbac, network-policies, proxy-config, templates',
    );
    expect(c.observedGeneration).toBe(1);
  });
});

describe('labels on a Profile', () => {
  it('override quota values; a malformed one is named in a Warning Event and the rest still applies', async () => {
    await label('team-a', {
      'quotas.kfx.dev/requests.cpu': '8',
      'quotas.kfx.dev/limits.cpu': 'lots',
    });
    const quota = await eventually(
      client,
      'resourceQuotas',
      'quotas',
      'team-a',
      (q) => hard(q)['requests.cpu'] === '8',
      'requests.cpu 8',
    );
    expect(hard(quota)['limits.cpu']).toBe('70');
    const c = await condition(
      client,
      'team-a',
      (x) => x.reason === 'ReconciledWithWarnings',
      'warnings',
    );
    expect(c.status).toBe('True');
    expect(c.message).toContain('quotas: label quotas.kfx.dev/limits.cpu="lots" ignored');
    const warning = await waitFor(
      async () => {
        const found = (await profileEvents(client, 'team-a')).find(
          (e) => e.reason === 'InvalidLabel',
        );
        return found ? { done: true, value: found } : { done: false, saw: 'no InvalidLabel event' };
      },
      { description: 'an InvalidLabel event' },
    );
    expect(warning.type).toBe('Warning');
    expect(warning.message).toContain('quotas.kfx.dev/limits.cpu="lots"');
  });

  it('switch optional network policies on, and off again (the policy is deleted)', async () => {
    await label('team-a', {
      'network-policies.kfx.dev/allow-egress-internet': 'true',
      team: 'vision',
    });
    await eventually(
      client,
      'networkPolicies',
      'allow-egress-internet',
      'team-a',
      (p) => p !== undefined,
      'the internet policy',
    );
    // The template follows the label: team-none is replaced by team-vision.
    await eventually(
      client,
      'configMaps',
      'team-vision',
      'team-a',
      (c) => c !== undefined,
      'team-vision',
    );
    await eventually(
      client,
      'configMaps',
      'team-none',
      'team-a',
      (c) => c === undefined,
      'team-none deleted',
    );
    await label('team-a', { 'network-policies.kfx.dev/allow-egress-internet': null });
    await eventually(
      client,
      'networkPolicies',
      'allow-egress-internet',
      'team-a',
      (p) => p === undefined,
      'the internet policy deleted',
    );
    expect(
      await eventMessages(
        client,
        'team-a',
        'Deleted',
        /deleted NetworkPolicy team-a\/allow-egress-internet/,
      ),
    ).toContain('deleted NetworkPolicy team-a/allow-egress-internet');
  });

  it('removed bring the defaults back and clear the warning', async () => {
    await label('team-a', {
      'quotas.kfx.dev/requests.cpu': null,
      'quotas.kfx.dev/limits.cpu': null,
    });
    await eventually(
      client,
      'resourceQuotas',
      'quotas',
      'team-a',
      (q) => hard(q)['requests.cpu'] === '70',
      'requests.cpu 70',
    );
    await condition(
      client,
      'team-a',
      (x) => x.reason === 'Reconciled',
      'reconciled without warnings',
    );
  });
});

describe('managed objects', () => {
  it('come back when deleted', async () => {
    const before = await read(client, 'resourceQuotas', 'quotas', 'team-a');
    await client.delete(resources.resourceQuotas, 'quotas', { namespace: 'team-a' });
    const after = await eventually(
      client,
      'resourceQuotas',
      'quotas',
      'team-a',
      (q) => q !== undefined && q.metadata?.uid !== before?.metadata?.uid,
      'a new quota',
    );
    expect(hard(after)['requests.cpu']).toBe('70');
  });

  it('are restored when edited, or when their managed-by label is removed, with an Event', async () => {
    await client.patch(
      resources.resourceQuotas,
      'quotas',
      { spec: { hard: { 'requests.cpu': '1000' } } },
      { namespace: 'team-a', fieldManager: 'kubectl-edit' },
    );
    await eventually(
      client,
      'resourceQuotas',
      'quotas',
      'team-a',
      (q) => hard(q)['requests.cpu'] === '70',
      'requests.cpu restored',
    );
    await client.patch(
      resources.limitRanges,
      'default-container-limits',
      { metadata: { labels: { 'app.kubernetes.io/managed-by': null } } },
      { namespace: 'team-a', fieldManager: 'kubectl-label' },
    );
    await eventually(
      client,
      'limitRanges',
      'default-container-limits',
      'team-a',
      (l) => l?.metadata?.labels?.['app.kubernetes.io/managed-by'] === 'kfx',
      'label restored',
    );
    const updated =
      /updated ResourceQuota team-a\/quotas: spec\.hard\.requests\.cpu: want "70", have "1k"/;
    expect(await eventMessages(client, 'team-a', 'Updated', updated)).toMatch(updated);
  });
});

describe('a Profile whose namespace does not exist yet', () => {
  it('waits, says why, and converges once the namespace appears', async () => {
    const profile = await createProfile(client, 'team-b', {}, { namespace: false });
    const waiting = await condition(
      client,
      'team-b',
      (c) => c.reason === 'NamespaceMissing',
      'waiting',
    );
    expect(waiting.message).toContain('namespace team-b does not exist yet');
    await client.create(resources.namespaces, profileNamespace(profile));
    await eventually(
      client,
      'resourceQuotas',
      'quotas',
      'team-b',
      (q) => q !== undefined,
      'quota in team-b',
    );
    await condition(client, 'team-b', (c) => c.reason === 'Reconciled', 'reconciled');
  });
});

describe('a reconciler whose object the API refuses', () => {
  it('fails alone: the others still apply, and the status names the error', async () => {
    await label('team-b', { team: 'Not_Valid' });
    const failed = await condition(
      client,
      'team-b',
      (c) => c.reason === 'ReconcileFailed',
      'failed',
    );
    expect(failed.status).toBe('False');
    expect(failed.message).toContain(
      'applied: quotas, limitrange, rbac, network-policies, proxy-config',
    );
    expect(failed.message).toMatch(
      /failed: templates: ConfigMap team-b\/team-Not_Valid: .*422 Invalid/,
    );
    await label('team-b', { team: 'ok' });
    await eventually(client, 'configMaps', 'team-ok', 'team-b', (c) => c !== undefined, 'team-ok');
    await condition(client, 'team-b', (c) => c.reason === 'Reconciled', 'reconciled again');
  });
});

describe('a steady cluster', () => {
  it('gets no writes across resyncs', async () => {
    const registry = running?.client.registry;
    if (!registry) throw new Error('no controller');
    await condition(client, 'team-a', (c) => c.reason === 'Reconciled', 'reconciled');
    await condition(client, 'team-b', (c) => c.reason === 'Reconciled', 'reconciled');
    // Let the last writes' own watch events settle.
    await new Promise((r) => setTimeout(r, 1500));
    const writes = await writeRequests(registry);
    const reconciles = await counterTotal(registry, 'kfx_controller_reconcile_total');
    await new Promise((r) => setTimeout(r, 5000));
    expect(await counterTotal(registry, 'kfx_controller_reconcile_total')).toBeGreaterThanOrEqual(
      reconciles + 4,
    );
    expect(await writeRequests(registry)).toBe(writes);
  });
});

describe('a deleted Profile', () => {
  it('takes its objects with it (garbage collection through the ownerReferences)', async () => {
    await client.delete(resources.profiles, 'team-a', { propagationPolicy: 'Foreground' });
    await eventually(
      client,
      'resourceQuotas',
      'quotas',
      'team-a',
      (q) => q === undefined,
      'quota deleted',
    );
    await waitFor(
      async () => {
        const left = await client.list(resources.networkPolicies, { namespace: 'team-a' });
        return left.items.length === 0
          ? { done: true, value: 0 }
          : { done: false, saw: `${left.items.length} policies` };
      },
      { description: 'policies deleted' },
    );
    await eventually(
      client,
      'profiles',
      'team-a',
      undefined,
      (p) => p === undefined,
      'Profile gone',
    );
  });
});
