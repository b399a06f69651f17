// What the upstream Kubeflow profile controller makes, made by kfx on a real control plane: the
// namespace with `istio-injection: enabled`, the ServiceAccounts default-editor/default-viewer
// bound to kubeflow-edit/kubeflow-view (proven by the API server's own RBAC answer), the
// ResourceQuota kf-resource-quota from spec.resourceQuotaSpec, and the shipped
// ns-owner-access-istio AuthorizationPolicy. Beyond upstream: a contributor-aware policy that
// follows the RoleBindings Kubeflow's access management makes (a new binding reconciles the
// Profile at once, with no resync) and takes each binding's one subject, never a user only its
// annotation names, an opt-in app switched by a label value, and no writes from a restarted
// controller on a steady cluster.
// On the package's shared plane: the controller selects this file's Profile only (so the
// steady-cluster check counts the writes made for it alone); the AuthorizationPolicy CRD is
// installed idempotently and no other file of the package installs it; the two Kubeflow
// ClusterRoles are this file's alone, and deleted by it.
import {
  isAlreadyExists,
  resources,
  type KubeClient,
  type KubeObject,
} from '@kfx/kube-runtime/client';
import {
  CRDS,
  installCrds,
  useSharedControlPlane,
  waitFor,
  type SharedControlPlane,
} from '@kfx/testenv';
import type { V1Namespace, V1ResourceQuota } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  allowed,
  condition,
  counterTotal,
  createProfile,
  eventually,
  fileProfiles,
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
let team = '';
const KUBEFLOW_ROLES = [
  ['kubeflow-edit', ['get', 'list', 'create', 'delete']],
  ['kubeflow-view', ['get', 'list']],
] as const;

// The Statistics Canada controller's policy: the owner and every editor of the namespace.
const contributorsPolicy = `
apiVersion: security.istio.io/v1beta1
kind: AuthorizationPolicy
metadata:
  name: namespace-owner-access-istio
spec:
  action: ALLOW
  rules:
    - when:
        - key: request.headers[{{ values.userIdHeader }}]
          values:
            - "{{ owner.name }}"
            {{ for c in contributors }}
            {{ if c.role == "edit" }}
            - "{{ c.user }}"
            {{ end }}
            {{ end }}
`;

// An app a Profile opts into by a label value (an ArgoCD Application in real life).
const giteaApp = `
{{ if profile.labels["sourcecontrol.example.com/enabled"] == "true" }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: gitea-banner
data:
  welcome: "Gitea for {{ owner.name }}"
{{ end }}
`;

const CONFIG = {
  namespace: {},
  'profile-quota': {},
  'network-policies': {
    preset: 'none',
    policies: [
      {
        name: 'allow-gitea-to-postgres',
        when: { label: 'sourcecontrol.example.com/enabled', value: 'true' },
        spec: {
          podSelector: { matchLabels: { app: 'gitea' } },
          policyTypes: ['Egress'],
          egress: [{ ports: [{ protocol: 'TCP', port: 5432 }] }],
        },
      },
    ],
  },
  templates: {
    shipped: ['ns-owner-access-istio'],
    values: { userIdHeader: 'kubeflow-userid' },
    inline: [
      { name: 'contributors.yaml', content: contributorsPolicy },
      { name: 'gitea.yaml', content: giteaApp },
    ],
  },
};

// The opt-in app's policy is one a tenant may switch on.
const CEILINGS = { networkPolicies: ['allow-gitea-to-postgres'] };

const authorizationPolicies = {
  group: 'security.istio.io',
  version: 'v1beta1',
  resource: 'authorizationpolicies',
  kind: 'AuthorizationPolicy',
  namespaced: true,
};
type Policy = KubeObject & {
  spec?: { rules?: { when?: { key: string; values: string[] }[] }[] };
};

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'kubeflow-parity');
  client = testClient(env);
  file = fileProfiles(env);
  team = file.name('k');
  await installCrds(env.kubeconfigPath, [CRDS.istioAuthorizationPolicy]);
  // Kubeflow's aggregated roles, reduced to what the RBAC checks below ask about.
  for (const [name, verbs] of KUBEFLOW_ROLES) {
    await client
      .create(resources.clusterRoles, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: [...verbs] }],
      } as KubeObject)
      .catch((error: unknown) => {
        if (!isAlreadyExists(error)) throw error;
      });
  }
  // A long resync: whatever happens below happens because a watch event said so.
  running = await runController(env, CONFIG, {
    resyncSeconds: 600,
    profileSelector: file.selector,
    ceilings: CEILINGS,
  });
});

afterAll(async () => {
  await running?.stop();
  if (team) await client.delete(resources.profiles, team).catch(() => undefined);
  for (const [name] of KUBEFLOW_ROLES) {
    await client.delete(resources.clusterRoles, name).catch(() => undefined);
  }
  client.close();
  await env?.release();
});

const policy = (name: string, namespace: string) =>
  client.get<Policy>(authorizationPolicies, name, { namespace }).catch(() => undefined);
const policyUsers = async (namespace: string) =>
  (await policy('namespace-owner-access-istio', namespace))?.spec?.rules?.[0]?.when?.[0]?.values;

describe('a new Profile, on a cluster without the upstream Kubeflow profile controller', () => {
  it('gets the namespace, ServiceAccounts, bindings, quota and owner policy upstream makes', async () => {
    await createProfile(client, team, file.labels, {
      namespace: false,
      resourceQuotaSpec: { hard: { 'requests.cpu': '4', pods: '20' } },
    });
    await condition(client, team, (c) => c.reason === 'Reconciled', 'reconciled');
    const namespace = await read<V1Namespace>(client, 'namespaces', team);
    expect(namespace?.metadata?.labels).toMatchObject({
      'istio-injection': 'enabled',
      'app.kubernetes.io/part-of': 'kubeflow-profile',
    });
    expect(namespace?.metadata?.annotations?.owner).toBe(`${team}@example.com`);

    // Notebooks and pipelines run as default-editor: the API server lets it edit, not the viewer.
    const account = (name: string) => `system:serviceaccount:${team}:${name}`;
    expect(await allowed(client, account('default-editor'), 'create', 'pods', team)).toBe(true);
    expect(await allowed(client, account('default-viewer'), 'list', 'pods', team)).toBe(true);
    expect(await allowed(client, account('default-viewer'), 'create', 'pods', team)).toBe(false);
    expect(await allowed(client, account('default-editor'), 'create', 'pods', 'other')).toBe(false);

    const quota = await read<V1ResourceQuota>(client, 'resourceQuotas', 'kf-resource-quota', team);
    expect(quota?.spec?.hard).toEqual({ 'requests.cpu': '4', pods: '20' });

    const owner = await policy('ns-owner-access-istio', team);
    expect(owner?.spec?.rules?.[0]?.when).toEqual([
      { key: 'request.headers[kubeflow-userid]', values: [`${team}@example.com`] },
    ]);
    expect(owner?.metadata?.labels?.['kfx.dev/reconciler']).toBe('templates');
  });

  it('has kf-resource-quota follow spec.resourceQuotaSpec: changed, kept while wrong, deleted when removed', async () => {
    const spec = (resourceQuotaSpec: unknown) =>
      client.patch(resources.profiles, team, { spec: { resourceQuotaSpec } });
    const hard = (q: KubeObject | undefined) => (q as V1ResourceQuota | undefined)?.spec?.hard;
    await spec({ hard: { 'requests.cpu': '8', pods: null } });
    await eventually(
      client,
      'resourceQuotas',
      'kf-resource-quota',
      team,
      (q) => JSON.stringify(hard(q)) === JSON.stringify({ 'requests.cpu': '8' }),
      'cpu 8, no pods',
    );

    // The Profile CRD checks the quantities; kfx the names a ResourceQuota can limit.
    await spec({ hard: { 'requests.cpu': '16', 'requests.cpus': '16' } });
    const refused = await condition(
      client,
      team,
      (c) => c.reason === 'ReconciledWithWarnings',
      'a warning',
    );
    expect(refused.message).toContain(
      'profile-quota: spec.resourceQuotaSpec.hard["requests.cpus"]: "requests.cpus" is not a resource a ResourceQuota can limit',
    );
    // Nothing half-applied: the last good quota stays in force.
    expect(hard(await read(client, 'resourceQuotas', 'kf-resource-quota', team))).toEqual({
      'requests.cpu': '8',
    });

    await spec(null);
    await eventually(
      client,
      'resourceQuotas',
      'kf-resource-quota',
      team,
      (q) => q === undefined,
      'quota deleted',
    );
    await condition(client, team, (c) => c.reason === 'Reconciled', 'reconciled again');
  });
});

describe('contributors', () => {
  const kfamBinding = (user: string, role: string): KubeObject => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: {
      name: `user-${user.replace(/[@.]/g, '-')}-clusterrole-${role}`,
      namespace: team,
      annotations: { user, role },
    },
    ...{
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: `kubeflow-${role}`,
      },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    },
  });

  it('join the contributor policy when Kubeflow shares the namespace with them, and leave it when unshared', async () => {
    expect(await policyUsers(team)).toEqual([`${team}@example.com`]);
    await client.create(resources.roleBindings, kfamBinding('bob@example.com', 'edit'));
    await client.create(resources.roleBindings, kfamBinding('carol@example.com', 'view'));
    await waitFor(
      async () => {
        const users = await policyUsers(team);
        return users?.length === 2
          ? { done: true, value: users }
          : { done: false, saw: JSON.stringify(users) };
      },
      { description: 'bob in the policy', timeoutMs: 30_000 },
    );
    expect(await policyUsers(team)).toEqual([`${team}@example.com`, 'bob@example.com']);

    await client.delete(
      resources.roleBindings,
      kfamBinding('bob@example.com', 'edit').metadata?.name ?? '',
      {
        namespace: team,
      },
    );
    await waitFor(
      async () => {
        const users = await policyUsers(team);
        return users?.length === 1
          ? { done: true, value: users }
          : { done: false, saw: JSON.stringify(users) };
      },
      { description: 'bob out of the policy', timeoutMs: 30_000 },
    );
  });

  it('are the users the bindings bind: a forged annotation or a binding of several is skipped, by name', async () => {
    const mallory = {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'User',
      name: 'mallory@example.com',
    };
    // The namespace's owner annotates a binding of someone else with a victim's name…
    const forged = { ...kfamBinding('victim@example.com', 'edit'), subjects: [mallory] };
    // …and one binding of two people, which KFAM never makes.
    const several = {
      ...kfamBinding('erin@example.com', 'edit'),
      subjects: [
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'erin@example.com' },
        mallory,
      ],
    };
    const dave = kfamBinding('dave@example.com', 'edit');
    const made = [forged, several, dave];
    try {
      for (const binding of made) await client.create(resources.roleBindings, binding);
      // Dave's binding came last: once he is in, the cache held the other two as well.
      const users = await waitFor(
        async () => {
          const users = await policyUsers(team);
          return users?.includes('dave@example.com')
            ? { done: true, value: users }
            : { done: false, saw: JSON.stringify(users) };
        },
        { description: 'dave in the policy', timeoutMs: 30_000 },
      );
      expect(users).toEqual([`${team}@example.com`, 'dave@example.com']);
      const reported = await condition(
        client,
        team,
        (c) => c.message?.includes('not taken as contributors') ?? false,
        'the skipped bindings reported',
      );
      expect(reported.reason).toBe('ReconciledWithWarnings');
      expect(reported.message).toContain(
        'RoleBinding user-victim-example-com-clusterrole-edit: it is annotated user victim@example.com but binds User mallory@example.com',
      );
      expect(reported.message).toContain(
        'RoleBinding user-erin-example-com-clusterrole-edit: it binds several subjects',
      );
    } finally {
      for (const binding of made) {
        await client
          .delete(resources.roleBindings, binding.metadata?.name ?? '', { namespace: team })
          .catch(() => undefined);
      }
    }
    await condition(
      client,
      team,
      (c) => c.status === 'True' && !c.message?.includes('not taken as contributors'),
      'no binding skipped any more',
    );
    // Dave's binding went last: the condition clears when the other two go, maybe before.
    await waitFor(
      async () => {
        const users = await policyUsers(team);
        return users?.length === 1 && users[0] === `${team}@example.com`
          ? { done: true, value: undefined }
          : { done: false, saw: JSON.stringify(users) };
      },
      { description: 'the owner alone in the policy again', timeoutMs: 30_000 },
    );
  });
});

describe('an app a Profile opts into by a label value', () => {
  it('comes with its NetworkPolicy when the label says "true", and goes when it says otherwise', async () => {
    const optIn = (value: string | null) =>
      client.patch(resources.profiles, team, {
        metadata: { labels: { 'sourcecontrol.example.com/enabled': value } },
      });
    await optIn('true');
    await eventually(client, 'configMaps', 'gitea-banner', team, (c) => c !== undefined, 'the app');
    await eventually(
      client,
      'networkPolicies',
      'allow-gitea-to-postgres',
      team,
      (p) => p !== undefined,
      'its policy',
    );
    await optIn('false');
    await eventually(
      client,
      'configMaps',
      'gitea-banner',
      team,
      (c) => c === undefined,
      'the app gone',
    );
    await eventually(
      client,
      'networkPolicies',
      'allow-gitea-to-postgres',
      team,
      (p) => p === undefined,
      'its policy gone',
    );
  });
});

describe('a steady cluster', () => {
  it('gets no writes from a restarted controller, nor across its resyncs', async () => {
    if (!env) throw new Error('no control plane');
    await condition(client, team, (c) => c.reason === 'Reconciled', 'reconciled');
    await running?.stop();
    running = await runController(env, CONFIG, {
      resyncSeconds: 1,
      profileSelector: file.selector,
      ceilings: CEILINGS,
    });
    const registry = running.client.registry;
    await waitFor(
      async () => {
        const reconciles = await counterTotal(registry, 'kfx_controller_reconcile_total');
        return reconciles >= 4
          ? { done: true, value: reconciles }
          : { done: false, saw: `${reconciles} reconciles` };
      },
      { description: 'four reconciles', timeoutMs: 30_000 },
    );
    expect(await writeRequests(registry)).toBe(0);
  });
});
