// What Kubeflow's other components read from the objects kfx makes, on a real control plane with
// a Profile CRD shaped exactly like Kubeflow's (testenv's): the owner's and contributors'
// RoleBindings as Kubeflow's access management (KFAM) lists them (the owner's annotated without
// being told to, groups among the contributors, templates seeing them, and a warning for a
// binding KFAM cannot see), the cloud identity that spec.plugins give default-editor (and take
// back), with the Google binding made as Config Connector's IAMPolicyMember (tested on its CRD)
// and gone with the plugin or the Profile, image pull secrets on the ServiceAccounts, Pod
// Security that admits a sidecar-injected Pod and keeps a tenant's exception, and a namespace
// the upstream profile controller made, taken over without deleting or duplicating anything
// (and left as upstream wants it when kfx stops).
// On the package's shared plane: the controller selects this file's Profiles only; the
// IAMPolicyMember CRD (a fixed name) is installed and deleted by this file.
import { resources, type KubeClient, type KubeObject } from '@kfx/kube-runtime/client';
import {
  CRDS,
  installCrds,
  kubectl,
  profileNamespace,
  useSharedControlPlane,
  waitFor,
  type SharedControlPlane,
} from '@kfx/testenv';
import type { V1Namespace, V1RoleBinding, V1ServiceAccount } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Profile } from '../profile.js';
import {
  condition,
  createProfile,
  eventMessages,
  eventually,
  fileProfiles,
  read,
  runController,
  testClient,
  type FileProfiles,
  type Running,
} from '../testing/harness.js';

let env: SharedControlPlane | undefined;
let running: Running | undefined;
let client: KubeClient;
let file: FileProfiles;
const made: string[] = [];

/** A template that lists whom the namespace is shared with: users, then groups. */
const SHARED_WITH = `apiVersion: v1
kind: ConfigMap
metadata:
  name: shared-with
data:
  owner: "{{ owner.name }}"
{{ for c in contributors }}
  user.{{ c.binding }}: "{{ c.user }} {{ c.role }}"
{{ end }}
{{ for g in groupContributors }}
  group.{{ g.binding }}: "{{ g.group }} {{ g.role }}"
{{ end }}
`;

const IAM_POLICY_MEMBERS = {
  group: 'iam.cnrm.cloud.google.com',
  version: 'v1beta1',
  resource: 'iampolicymembers',
  kind: 'IAMPolicyMember',
  namespaced: true,
};

/**
 * kfx in place of the upstream profile controller, as the migration guide configures it: the
 * owner's binding annotated for KFAM without being told to, the Google binding of
 * WorkloadIdentity made through Config Connector in this file's namespace.
 */
const config = () => ({
  namespace: {
    imagePullSecrets: ['regcred'],
    workloadIdentity: {
      binding: 'config-connector',
      pool: 'cluster-project.svc.id.goog',
      namespace: env?.namespace,
    },
  },
  rbac: {
    bindings: [{ name: 'namespaceAdmin', clusterRole: 'kubeflow-admin', owner: true }] as Record<
      string,
      unknown
    >[],
  },
  'profile-quota': {},
  templates: { inline: [{ name: 'shared-with', content: SHARED_WITH }] },
});

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'kf-contracts');
  client = testClient(env);
  file = fileProfiles(env);
  await installCrds(env.kubeconfigPath, [CRDS.configConnectorIamPolicyMember]);
  running = await runController(env, config(), {
    profileSelector: file.selector,
    ceilings: ceilings(),
  });
});

/** The plugins' Profile may name the identities its test gives it (nothing else may). */
const ceilings = () => ({
  cloudIdentities: {
    profiles: {
      [file.name('plugins')]: {
        awsIamRoles: ['arn:aws:iam::123456789012:role/pipelines'],
        gcpServiceAccounts: ['pipelines@my-project.iam.gserviceaccount.com'],
      },
      [file.name('plugins-gone')]: {
        awsIamRoles: ['arn:aws:iam::123456789012:role/pipelines'],
        gcpServiceAccounts: ['pipelines@my-project.iam.gserviceaccount.com'],
      },
    },
  },
});

afterAll(async () => {
  await running?.stop();
  for (const name of made) {
    await client
      .patch(resources.profiles, name, { metadata: { finalizers: null } }, { type: 'merge' })
      .catch(() => undefined);
    await client.delete(resources.profiles, name).catch(() => undefined);
  }
  if (env) {
    await kubectl(env.kubeconfigPath, [
      'delete',
      'crd',
      'iampolicymembers.iam.cnrm.cloud.google.com',
      '--ignore-not-found',
    ]).catch(() => undefined);
  }
  client.close();
  await env?.release();
});

/** A Profile of this file; its namespace made by kfx unless `upstream` made it first. */
async function profile(suffix: string, spec: Record<string, unknown> = {}): Promise<string> {
  const name = file.name(suffix);
  made.push(name);
  await client.create<Profile>(resources.profiles, {
    apiVersion: 'kubeflow.org/v1',
    kind: 'Profile',
    metadata: { name, labels: file.labels },
    spec: { owner: { kind: 'User', name: `${name}@example.com` }, ...spec },
  });
  await condition(client, name, (c) => c.reason === 'Reconciled', 'reconciled');
  return name;
}

interface KfamBinding {
  user: string;
  role: string;
  subject: string;
}

/**
 * The namespace's bindings as KFAM lists them: annotated `user` and `role`, each with exactly one
 * subject (KFAM fails the whole listing otherwise), its ClusterRole named kubeflow-<role>.
 */
async function kfamBindings(namespace: string): Promise<KfamBinding[]> {
  const list = await client.list<V1RoleBinding>(resources.roleBindings, { namespace });
  const found: KfamBinding[] = [];
  for (const binding of list.items) {
    const { user, role } = binding.metadata?.annotations ?? {};
    if (user === undefined || role === undefined) continue;
    if (binding.subjects?.length !== 1) {
      throw new Error(
        `KFAM would fail: ${binding.metadata?.name ?? ''} has ${binding.subjects?.length ?? 0} subjects`,
      );
    }
    expect(binding.roleRef.name).toBe(`kubeflow-${role}`);
    found.push({
      user,
      role,
      subject: `${binding.subjects[0]?.kind ?? ''}:${binding.subjects[0]?.name ?? ''}`,
    });
  }
  return found.sort((a, b) => a.user.localeCompare(b.user));
}

describe('the owner and contributors', () => {
  it('appear as Kubeflow’s access management lists them: annotated, one subject each', async () => {
    const team = await profile('kfam');
    // A contributor, as KFAM itself makes one.
    await client.create(resources.roleBindings, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: {
        name: 'user-bob-example-com-clusterrole-edit',
        namespace: team,
        annotations: { user: 'bob@example.com', role: 'edit' },
      },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'kubeflow-edit',
      },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob@example.com' }],
    } as KubeObject);
    // A group contributor, as KFAM makes one for the dashboard's `group:` sharing.
    await client.create(resources.roleBindings, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: {
        name: 'group-data-team-clusterrole-view',
        namespace: team,
        annotations: { user: 'data-team', role: 'view' },
      },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'kubeflow-view',
      },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'data-team' }],
    } as KubeObject);
    expect(await kfamBindings(team)).toEqual([
      { user: 'bob@example.com', role: 'edit', subject: 'User:bob@example.com' },
      { user: 'data-team', role: 'view', subject: 'Group:data-team' },
      { user: `${team}@example.com`, role: 'admin', subject: `User:${team}@example.com` },
    ]);
    // kfx's templates see both: the users, and the group in a list of its own.
    const shared = await eventually<KubeObject & { data?: Record<string, string> }>(
      client,
      'configMaps',
      'shared-with',
      team,
      (cm) => Object.keys(cm?.data ?? {}).length === 4,
      'the template to list the contributors and the group',
    );
    expect(shared?.data).toEqual({
      owner: `${team}@example.com`,
      'user.namespaceAdmin': `${team}@example.com admin`,
      'user.user-bob-example-com-clusterrole-edit': 'bob@example.com edit',
      'group.group-data-team-clusterrole-view': 'data-team view',
    });
  });

  it('are warned of in the condition when a binding to a kubeflow-* role lacks KFAM’s annotations', async () => {
    if (!env) throw new Error('no control plane');
    await running?.stop();
    const unseen = config();
    unseen.rbac.bindings.push({
      name: 'team-edit',
      clusterRole: 'kubeflow-edit',
      subjects: [{ kind: 'Group', name: 'ml-team' }],
    });
    running = await runController(env, unseen, {
      profileSelector: file.selector,
      ceilings: ceilings(),
    });
    const name = file.name('kfam');
    const warned = await condition(
      client,
      name,
      (c) => c.reason === 'ReconciledWithWarnings',
      'a warning about team-edit',
    );
    expect(warned.message).toContain(
      "RoleBinding team-edit binds ClusterRole kubeflow-edit without Kubeflow's access-management annotations user and role: KFAM and the dashboard do not list Group ml-team",
    );
    await running.stop();
    running = await runController(env, config(), {
      profileSelector: file.selector,
      ceilings: ceilings(),
    });
    await condition(client, name, (c) => c.reason === 'Reconciled', 'reconciled again');
  });
});

describe('spec.plugins', () => {
  it('give default-editor its cloud identity, and removing them takes it away', async () => {
    const role = 'arn:aws:iam::123456789012:role/pipelines';
    const team = await profile('plugins', {
      plugins: [
        { kind: 'AwsIamForServiceAccount', spec: { awsIamRole: role, annotateOnly: true } },
        {
          kind: 'WorkloadIdentity',
          spec: { gcpServiceAccount: 'pipelines@my-project.iam.gserviceaccount.com' },
        },
      ],
    });
    const editor = await read<V1ServiceAccount>(client, 'serviceAccounts', 'default-editor', team);
    expect(editor?.metadata?.annotations).toMatchObject({
      'eks.amazonaws.com/role-arn': role,
      'iam.gke.io/gcp-service-account': 'pipelines@my-project.iam.gserviceaccount.com',
    });
    // Image pull secrets ride on every ServiceAccount kfx makes.
    expect(editor?.imagePullSecrets).toEqual([{ name: 'regcred' }]);
    const viewer = await read<V1ServiceAccount>(client, 'serviceAccounts', 'default-viewer', team);
    expect(viewer?.imagePullSecrets).toEqual([{ name: 'regcred' }]);

    // The Google binding, as Config Connector's IAMPolicyMember, beside the Profiles.
    const member = await client.get<KubeObject & { spec?: unknown }>(
      IAM_POLICY_MEMBERS,
      `${team}-workload-identity`,
      { namespace: env?.namespace },
    );
    expect(member.spec).toEqual({
      member: `serviceAccount:cluster-project.svc.id.goog[${team}/default-editor]`,
      role: 'roles/iam.workloadIdentityUser',
      resourceRef: {
        apiVersion: 'iam.cnrm.cloud.google.com/v1beta1',
        kind: 'IAMServiceAccount',
        external:
          'projects/my-project/serviceAccounts/pipelines@my-project.iam.gserviceaccount.com',
      },
    });
    expect(member.metadata?.ownerReferences?.[0]?.name).toBe(team);

    await client.patch(resources.profiles, team, { spec: { plugins: null } });
    await eventually<V1ServiceAccount>(
      client,
      'serviceAccounts',
      'default-editor',
      team,
      (sa) =>
        sa?.metadata?.annotations?.['eks.amazonaws.com/role-arn'] === undefined &&
        sa?.metadata?.annotations?.['iam.gke.io/gcp-service-account'] === undefined,
      'the identity annotations removed',
    );
    // Removing the plugin removes the binding kfx made for it.
    await waitFor(
      async () => {
        const left = await client.list(IAM_POLICY_MEMBERS, { namespace: env?.namespace });
        return left.items.length === 0
          ? { done: true, value: undefined }
          : { done: false, saw: `${left.items.length} IAMPolicyMember(s)` };
      },
      { description: 'the IAMPolicyMember deleted with the plugin', timeoutMs: 30_000 },
    );
  });

  it('have their Google binding deleted with the Profile, upstream’s finalizer removed, and say what is left', async () => {
    const name = file.name('plugins-gone');
    made.push(name);
    await client.create<Profile>(resources.profiles, {
      apiVersion: 'kubeflow.org/v1',
      kind: 'Profile',
      metadata: { name, labels: file.labels },
      spec: {
        owner: { kind: 'User', name: `${name}@example.com` },
        plugins: [
          {
            kind: 'WorkloadIdentity',
            spec: { gcpServiceAccount: 'pipelines@my-project.iam.gserviceaccount.com' },
          },
          // Upstream would edit the role's trust policy: kfx says it does not.
          {
            kind: 'AwsIamForServiceAccount',
            spec: { awsIamRole: 'arn:aws:iam::123456789012:role/pipelines' },
          },
        ],
      },
    });
    const team = name;
    await condition(client, team, (c) => c.status === 'True', 'reconciled');
    // As the upstream controller left it: its finalizer on the Profile.
    await client.patch(resources.profiles, team, {
      metadata: { finalizers: ['profile-finalizer'] },
    });
    await client.get(IAM_POLICY_MEMBERS, `${team}-workload-identity`, {
      namespace: env?.namespace,
    });
    await client.delete(resources.profiles, team);
    await waitFor(
      async () => {
        const left = await client.list(IAM_POLICY_MEMBERS, { namespace: env?.namespace });
        const profileLeft = await read<Profile>(client, 'profiles', team);
        return left.items.length === 0 && !profileLeft
          ? { done: true, value: undefined }
          : {
              done: false,
              saw: `${left.items.length} IAMPolicyMember(s), Profile ${profileLeft ? 'still there' : 'gone'}`,
            };
      },
      { description: 'the Profile and its Google binding gone', timeoutMs: 30_000 },
    );
    const skipped = await eventMessages(client, team, 'CloudCleanupSkipped', /trust policy/);
    expect(skipped).toContain(
      `the trust policy of IAM role arn:aws:iam::123456789012:role/pipelines still allows system:serviceaccount:${team}:default-editor`,
    );
    // The Google binding was kfx's to delete, and it did.
    expect(skipped).not.toContain('Google service account');
  });
});

/** A Pod as Istio's sidecar injector leaves it without Istio CNI. */
const sidecarPod = (namespace: string, name: string) =>
  client.create(resources.pods, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace },
    spec: {
      initContainers: [
        {
          name: 'istio-init',
          image: 'docker.io/istio/proxyv2:1.26.2',
          args: ['istio-iptables', '-p', '15001', '-z', '15006', '-u', '1337'],
          securityContext: { capabilities: { add: ['NET_ADMIN', 'NET_RAW'], drop: ['ALL'] } },
        },
      ],
      containers: [{ name: 'notebook', image: 'jupyter' }],
    },
  } as KubeObject);

describe('Pod Security', () => {
  it('admits a sidecar-injected Pod by default, and keeps a tenant’s exception', async () => {
    const team = await profile('psa');
    await sidecarPod(team, 'notebook-0');

    // A tenant whose Profile says restricted: the same Pod is refused there.
    const strict = await profile('psa-strict');
    await client.patch(resources.profiles, strict, {
      metadata: { labels: { 'pod-security.kfx.dev/enforce': 'restricted' } },
    });
    await eventually<V1Namespace>(
      client,
      'namespaces',
      strict,
      undefined,
      (ns) => ns?.metadata?.labels?.['pod-security.kubernetes.io/enforce'] === 'restricted',
      'the exception on the namespace',
    );
    await expect(sidecarPod(strict, 'notebook-0')).rejects.toThrow(/violates PodSecurity/);
    // Someone edits the namespace label by hand: the Profile's exception is put back.
    await client.patch(resources.namespaces, strict, {
      metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } },
    });
    await eventually<V1Namespace>(
      client,
      'namespaces',
      strict,
      undefined,
      (ns) => ns?.metadata?.labels?.['pod-security.kubernetes.io/enforce'] === 'restricted',
      'the exception restored',
    );
  });
});

describe('a namespace the upstream profile controller made', () => {
  it('is taken over without deleting or duplicating anything, and stays as upstream wants it', async () => {
    if (!env) throw new Error('no control plane');
    const name = file.name('migrated');
    made.push(name);
    const owner = `${name}@example.com`;
    // Not yet this file's (no file label): upstream's objects are made first.
    const created = await createProfile(client, name, {}, { namespace: false, owner });
    await client.create(resources.namespaces, profileNamespace(created));
    const ownerRef = {
      apiVersion: 'kubeflow.org/v1',
      kind: 'Profile',
      name,
      uid: created.metadata?.uid ?? '',
      controller: true,
      blockOwnerDeletion: true,
    };
    const binding = (
      bindingName: string,
      role: string,
      subject: Record<string, string>,
      annotations?: Record<string, string>,
    ) =>
      client.create(resources.roleBindings, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: {
          name: bindingName,
          namespace: name,
          ownerReferences: [ownerRef],
          ...(annotations ? { annotations } : {}),
        },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [subject],
      } as KubeObject);
    const upstream = [
      await binding(
        'namespaceAdmin',
        'kubeflow-admin',
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: owner },
        { user: owner, role: 'admin' },
      ),
      await binding('default-editor', 'kubeflow-edit', {
        kind: 'ServiceAccount',
        name: 'default-editor',
        namespace: name,
      }),
      await binding('default-viewer', 'kubeflow-view', {
        kind: 'ServiceAccount',
        name: 'default-viewer',
        namespace: name,
      }),
    ];
    for (const account of ['default-editor', 'default-viewer']) {
      upstream.push(
        await client.create(resources.serviceAccounts, {
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: { name: account, namespace: name, ownerReferences: [ownerRef] },
        }),
      );
    }
    const uids = new Map(
      upstream.map((o) => [`${o.kind ?? ''}/${o.metadata?.name ?? ''}`, o.metadata?.uid]),
    );

    await client.patch(resources.profiles, name, { metadata: { labels: file.labels } });
    await condition(client, name, (c) => c.reason === 'Reconciled', 'reconciled');
    const bindings = (await client.list<V1RoleBinding>(resources.roleBindings, { namespace: name }))
      .items;
    const accounts = (
      await client.list<V1ServiceAccount>(resources.serviceAccounts, { namespace: name })
    ).items;
    const now = [...bindings, ...accounts].filter((o) => o.metadata?.name !== 'default');
    // The same objects, not new ones: nothing deleted, nothing duplicated.
    expect(
      new Map(now.map((o) => [`${o.kind ?? ''}/${o.metadata?.name ?? ''}`, o.metadata?.uid])),
    ).toEqual(uids);
    for (const object of now) {
      expect(object.metadata?.ownerReferences, object.metadata?.name).toEqual([ownerRef]);
    }
    expect(await kfamBindings(name)).toEqual([
      { user: owner, role: 'admin', subject: `User:${owner}` },
    ]);

    // kfx stops (as when a site goes back to the upstream controller): nothing goes with it.
    await running?.stop();
    running = undefined;
    const after = await read<V1RoleBinding>(client, 'roleBindings', 'namespaceAdmin', name);
    expect(after?.metadata?.uid).toBe(uids.get('RoleBinding/namespaceAdmin'));
    expect(after?.roleRef.name).toBe('kubeflow-admin');
    expect(after?.metadata?.annotations).toMatchObject({ user: owner, role: 'admin' });
    running = await runController(env, config(), {
      profileSelector: file.selector,
      ceilings: ceilings(),
    });
  });
});
