// Profiles created, labelled, unlabelled and deleted on a real control plane (with
// controller-manager for garbage collection): the objects follow, managed objects that are
// deleted or edited come back, and each Profile's status and Events say what happened.
// On the package's shared plane (whose controller-manager collects): the controller selects
// this file's Profiles only, so the write and reconcile counts are theirs.
import { resources, type KubeClient, type KubeObject } from '@kfx/kube-runtime/client';
import {
  profileNamespace,
  useSharedControlPlane,
  waitFor,
  type SharedControlPlane,
} from '@kfx/testenv';
import type { V1ConfigMap, V1ResourceQuota, V1RoleBinding } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  condition,
  counterTotal,
  createProfile,
  eventMessages,
  eventually,
  fileProfiles,
  objectWrites,
  profileEvents,
  read,
  runController,
  testClient,
  writeRequests,
  type FileProfiles,
  type Running,
} from '../testing/harness.js';

let env: SharedControlPlane | undefined;
let running: Running | undefined;
let client: KubeClient;
let file: FileProfiles;
let teamA = '';
let teamB = '';

const ownerTemplate = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: team-{{ profile.labels["team"] | default "none" }}
data:
  owner: "{{ owner.name }}"
`;

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'converge');
  client = testClient(env);
  file = fileProfiles(env);
  teamA = file.name('a');
  teamB = file.name('b');
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
    {
      resyncSeconds: 2,
      profileSelector: file.selector,
      // The optional internet egress is one a tenant may switch on here.
      ceilings: { networkPolicies: ['allow-egress-internet'] },
    },
  );
});

afterAll(async () => {
  await running?.stop();
  for (const name of [teamA, teamB]) {
    if (name) await client.delete(resources.profiles, name).catch(() => undefined);
  }
  client.close();
  await env?.release();
});

const hard = (q: KubeObject | undefined) => (q as V1ResourceQuota | undefined)?.spec?.hard ?? {};
const label = (name: string, labels: Record<string, string | null>) =>
  client.patch(resources.profiles, name, { metadata: { labels } });

describe('a new Profile', () => {
  it('gets every configured object, owned by it and labelled as kfx-managed', async () => {
    const profile = await createProfile(client, teamA, file.labels);
    const quota = await eventually<V1ResourceQuota>(
      client,
      'resourceQuotas',
      'quotas',
      teamA,
      (q) => q !== undefined,
      `ResourceQuota ${teamA}/quotas`,
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
        name: teamA,
        uid: profile.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    await condition(client, teamA, (c) => c.reason === 'Reconciled', 'reconciled');

    expect(await read(client, 'limitRanges', 'default-container-limits', teamA)).toBeDefined();
    const policies = await client.list(resources.networkPolicies, { namespace: teamA });
    expect(policies.items.map((p) => p.metadata?.name)).toContain('allow-egress-dns');
    expect(policies.items).toHaveLength(11);
    const admin = await read<V1RoleBinding>(client, 'roleBindings', 'namespaceAdmin', teamA);
    expect(admin?.subjects).toEqual([
      { kind: 'User', name: `${teamA}@example.com`, apiGroup: 'rbac.authorization.k8s.io' },
    ]);
    const proxy = await read<V1ConfigMap>(client, 'configMaps', 'kfx-proxy', teamA);
    expect(proxy?.data).toMatchObject({
      http_proxy: 'http://proxy.example.com:3128',
      NO_PROXY: '.svc,localhost',
    });
    const templated = await read<V1ConfigMap>(client, 'configMaps', 'team-none', teamA);
    expect(templated?.data).toEqual({ owner: `${teamA}@example.com` });
    // All of it made by kfx: told as created (the namespace too, made before it is applied),
    // none as taken over from someone else.
    const registry = running?.client.registry;
    if (!registry) throw new Error('no controller');
    const writes = (action: string) => objectWrites(registry, action);
    expect(await writes('adopted')).toBe(0);
    expect(await writes('created')).toBeGreaterThan(15);
  });

  it('says in its status which reconcilers applied', async () => {
    const c = await condition(client, teamA, (x) => x.status === 'True', 'True');
    expect(c.message).toBe(
      'Reconciled: applied: quotas, limitrange, rbac, network-policies, proxy-config, templates',
    );
    // Kubeflow's Profile CRD keeps no observedGeneration: the message says it all.
    expect(c.observedGeneration).toBeUndefined();
  });
});

describe('labels on a Profile', () => {
  it('override quota values; a malformed one is named in a Warning Event and the rest still applies', async () => {
    await label(teamA, {
      'quotas.kfx.dev/requests.cpu': '8',
      'quotas.kfx.dev/limits.cpu': 'lots',
    });
    const quota = await eventually(
      client,
      'resourceQuotas',
      'quotas',
      teamA,
      (q) => hard(q)['requests.cpu'] === '8',
      'requests.cpu 8',
    );
    expect(hard(quota)['limits.cpu']).toBe('70');
    const c = await condition(
      client,
      teamA,
      (x) => x.reason === 'ReconciledWithWarnings',
      'warnings',
    );
    expect(c.status).toBe('True');
    expect(c.message).toContain('quotas: label quotas.kfx.dev/limits.cpu="lots" ignored');
    const warning = await waitFor(
      async () => {
        const found = (await profileEvents(client, teamA)).find((e) => e.reason === 'InvalidLabel');
        return found ? { done: true, value: found } : { done: false, saw: 'no InvalidLabel event' };
      },
      { description: 'an InvalidLabel event' },
    );
    expect(warning.type).toBe('Warning');
    expect(warning.message).toContain('quotas.kfx.dev/limits.cpu="lots"');
  });

  it('switch optional network policies on, and off again (the policy is deleted)', async () => {
    await label(teamA, {
      'network-policies.kfx.dev/allow-egress-internet': 'true',
      team: 'vision',
    });
    await eventually(
      client,
      'networkPolicies',
      'allow-egress-internet',
      teamA,
      (p) => p !== undefined,
      'the internet policy',
    );
    // The template follows the label: team-none is replaced by team-vision.
    await eventually(
      client,
      'configMaps',
      'team-vision',
      teamA,
      (c) => c !== undefined,
      'team-vision',
    );
    await eventually(
      client,
      'configMaps',
      'team-none',
      teamA,
      (c) => c === undefined,
      'team-none deleted',
    );
    await label(teamA, { 'network-policies.kfx.dev/allow-egress-internet': null });
    await eventually(
      client,
      'networkPolicies',
      'allow-egress-internet',
      teamA,
      (p) => p === undefined,
      'the internet policy deleted',
    );
    expect(
      await eventMessages(
        client,
        teamA,
        'Deleted',
        new RegExp(`deleted NetworkPolicy ${teamA}/allow-egress-internet`),
      ),
    ).toContain(`deleted NetworkPolicy ${teamA}/allow-egress-internet`);
  });

  it('removed bring the defaults back and clear the warning', async () => {
    await label(teamA, {
      'quotas.kfx.dev/requests.cpu': null,
      'quotas.kfx.dev/limits.cpu': null,
    });
    await eventually(
      client,
      'resourceQuotas',
      'quotas',
      teamA,
      (q) => hard(q)['requests.cpu'] === '70',
      'requests.cpu 70',
    );
    await condition(client, teamA, (x) => x.reason === 'Reconciled', 'reconciled without warnings');
  });
});

describe('managed objects', () => {
  it('come back when deleted', async () => {
    const before = await read(client, 'resourceQuotas', 'quotas', teamA);
    await client.delete(resources.resourceQuotas, 'quotas', { namespace: teamA });
    const after = await eventually(
      client,
      'resourceQuotas',
      'quotas',
      teamA,
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
      { namespace: teamA, fieldManager: 'kubectl-edit' },
    );
    await eventually(
      client,
      'resourceQuotas',
      'quotas',
      teamA,
      (q) => hard(q)['requests.cpu'] === '70',
      'requests.cpu restored',
    );
    await client.patch(
      resources.limitRanges,
      'default-container-limits',
      { metadata: { labels: { 'app.kubernetes.io/managed-by': null } } },
      { namespace: teamA, fieldManager: 'kubectl-label' },
    );
    await eventually(
      client,
      'limitRanges',
      'default-container-limits',
      teamA,
      (l) => l?.metadata?.labels?.['app.kubernetes.io/managed-by'] === 'kfx',
      'label restored',
    );
    const updated = new RegExp(
      `updated ResourceQuota ${teamA}/quotas: spec\\.hard\\.requests\\.cpu: want "70", have "1k"`,
    );
    expect(await eventMessages(client, teamA, 'Updated', updated)).toMatch(updated);
  });
});

describe('a Profile whose namespace does not exist yet', () => {
  it('waits, says why, and converges once the namespace appears', async () => {
    const profile = await createProfile(client, teamB, file.labels, { namespace: false });
    const waiting = await condition(
      client,
      teamB,
      (c) => c.reason === 'NamespaceMissing',
      'waiting',
    );
    expect(waiting.message).toContain(`namespace ${teamB} does not exist yet`);
    await client.create(resources.namespaces, profileNamespace(profile));
    await eventually(
      client,
      'resourceQuotas',
      'quotas',
      teamB,
      (q) => q !== undefined,
      `quota in ${teamB}`,
    );
    await condition(client, teamB, (c) => c.reason === 'Reconciled', 'reconciled');
  });
});

describe('a reconciler whose object the API refuses', () => {
  it('fails alone: the others still apply, and the status names the error', async () => {
    await label(teamB, { team: 'Not_Valid' });
    const failed = await condition(client, teamB, (c) => c.reason === 'ReconcileFailed', 'failed');
    expect(failed.status).toBe('False');
    expect(failed.message).toContain(
      'applied: quotas, limitrange, rbac, network-policies, proxy-config',
    );
    expect(failed.message).toMatch(
      new RegExp(`failed: templates: ConfigMap ${teamB}/team-Not_Valid: .*422 Invalid`),
    );
    await label(teamB, { team: 'ok' });
    await eventually(client, 'configMaps', 'team-ok', teamB, (c) => c !== undefined, 'team-ok');
    await condition(client, teamB, (c) => c.reason === 'Reconciled', 'reconciled again');
  });
});

describe('a steady cluster', () => {
  it('gets no writes across resyncs', async () => {
    const registry = running?.client.registry;
    if (!registry) throw new Error('no controller');
    await condition(client, teamA, (c) => c.reason === 'Reconciled', 'reconciled');
    await condition(client, teamB, (c) => c.reason === 'Reconciled', 'reconciled');
    // Two resyncs of both Profiles let the last writes' own watch events settle; the writes
    // are counted across two more.
    const resyncs = async (count: number) => {
      const from = await counterTotal(registry, 'kfx_controller_reconcile_total');
      await waitFor(
        async () => {
          const now = await counterTotal(registry, 'kfx_controller_reconcile_total');
          return now >= from + count
            ? { done: true, value: undefined }
            : { done: false, saw: `${now - from} reconciles` };
        },
        { description: `${count} more reconciles`, timeoutMs: 60_000 },
      );
    };
    await resyncs(4);
    const writes = await writeRequests(registry);
    await resyncs(4);
    expect(await writeRequests(registry)).toBe(writes);
  });
});

describe('a deleted Profile', () => {
  it('takes its objects with it (garbage collection through the ownerReferences)', async () => {
    await client.delete(resources.profiles, teamA, { propagationPolicy: 'Foreground' });
    await eventually(
      client,
      'resourceQuotas',
      'quotas',
      teamA,
      (q) => q === undefined,
      'quota deleted',
    );
    await waitFor(
      async () => {
        const left = await client.list(resources.networkPolicies, { namespace: teamA });
        return left.items.length === 0
          ? { done: true, value: 0 }
          : { done: false, saw: `${left.items.length} policies` };
      },
      { description: 'policies deleted' },
    );
    await eventually(client, 'profiles', teamA, undefined, (p) => p === undefined, 'Profile gone');
  });
});
