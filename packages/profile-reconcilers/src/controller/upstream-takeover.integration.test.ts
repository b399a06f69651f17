// Taking over a cluster the upstream Kubeflow profile controller ran, with its state exactly as
// that controller leaves it: every Profile carries its finalizer `profile-finalizer` (one was
// created as v1beta1), every namespace its labels and the owner annotation, one namespace an
// administrator's exceptions (Istio injection and Katib's metrics collector turned off), and
// the ServiceAccounts, RoleBindings and quota exist without kfx's marks. kfx, configured to
// replace that controller, must say it adopted (not created) what it took over, keep the
// exceptions through resyncs (labels it only sets as defaults are never overwritten; a label it
// enforces is put back, with an Event; `""` removes one), and let every Profile be deleted:
// Profile gone, namespace terminating. A Profile held by someone else's finalizer says which.
// On the package's shared plane: the controller selects this file's Profiles only;
// controller-manager deletes what a deleted Profile owned.
import { Writable } from 'node:stream';
import {
  getOrUndefined,
  resources,
  type KubeClient,
  type KubeObject,
  type ResourceRef,
} from '@kfx/kube-runtime/client';
import {
  profileNamespace,
  useSharedControlPlane,
  waitFor,
  type SharedControlPlane,
} from '@kfx/testenv';
import type { V1Namespace } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Profile } from '../profile.js';
import {
  condition,
  counterTotal,
  eventMessages,
  fileProfiles,
  objectWrites,
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
const logLines: { msg?: string; object?: string; reason?: string }[] = [];

const FINALIZER = 'profile-finalizer';
const PROFILES_V1BETA1: ResourceRef = { ...resources.profiles, version: 'v1beta1' };
const RBAC = 'rbac.authorization.k8s.io';

/** kfx in place of the upstream controller, its labels as Kubeflow's overlay `kubeflow` has them. */
const CONFIG = {
  namespace: {
    labels: {
      'app.kubernetes.io/part-of': 'kubeflow-profile',
      'katib.kubeflow.org/metrics-collector-injection': 'enabled',
      'pipelines.kubeflow.org/enabled': 'true',
      // Upstream's labels file removes a key with an empty value.
      'serving.kubeflow.org/inferenceservice': '',
    },
    enforcedLabels: ['pipelines.kubeflow.org/enabled'],
  },
  rbac: {
    bindings: [{ name: 'namespaceAdmin', clusterRole: 'kubeflow-admin', owner: true }],
  },
  'profile-quota': {},
};

/** The labels the upstream controller gives a namespace it makes (overlay `kubeflow`). */
const UPSTREAM_LABELS = {
  'app.kubernetes.io/part-of': 'kubeflow-profile',
  'katib.kubeflow.org/metrics-collector-injection': 'enabled',
  'pipelines.kubeflow.org/enabled': 'true',
  'serving.kubeflow.org/inferenceservice': 'enabled',
  'istio-injection': 'enabled',
};

/** The objects the upstream controller makes in a Profile's namespace, owned by the Profile. */
function upstreamObjects(profile: Profile): KubeObject[] {
  const name = profile.metadata?.name ?? '';
  const owner = profile.spec?.owner?.name ?? '';
  const ownerReferences = profileNamespace(profile).metadata?.ownerReferences;
  const meta = (objectName: string, annotations?: Record<string, string>) => ({
    name: objectName,
    namespace: name,
    ownerReferences,
    ...(annotations ? { annotations } : {}),
  });
  const binding = (
    objectName: string,
    role: string,
    subject: Record<string, string>,
    annotations?: Record<string, string>,
  ) => ({
    apiVersion: `${RBAC}/v1`,
    kind: 'RoleBinding',
    metadata: meta(objectName, annotations),
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role },
    subjects: [subject],
  });
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta('default-editor') },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta('default-viewer') },
    binding('default-editor', 'kubeflow-edit', {
      kind: 'ServiceAccount',
      name: 'default-editor',
      namespace: name,
    }),
    binding('default-viewer', 'kubeflow-view', {
      kind: 'ServiceAccount',
      name: 'default-viewer',
      namespace: name,
    }),
    binding(
      'namespaceAdmin',
      'kubeflow-admin',
      { apiGroup: RBAC, kind: 'User', name: owner },
      { user: owner, role: 'admin' },
    ),
    {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: meta('kf-resource-quota'),
      spec: profile.spec?.resourceQuotaSpec,
    } as KubeObject,
  ];
}

/** A Profile and everything the upstream controller made for it, its finalizer included. */
async function upstreamProfile(
  suffix: string,
  version: 'v1' | 'v1beta1',
  finalizers: string[] = [FINALIZER],
  /** Its namespace and objects too (before kfx runs; afterwards kfx makes them). */
  objects = true,
): Promise<string> {
  const name = file.name(suffix);
  made.push(name);
  const ref = version === 'v1' ? resources.profiles : PROFILES_V1BETA1;
  const profile = await client.create<Profile>(ref, {
    apiVersion: `kubeflow.org/${version}`,
    kind: 'Profile',
    metadata: { name, labels: file.labels, finalizers },
    spec: {
      owner: { kind: 'User', name: `${name}@example.com` },
      resourceQuotaSpec: { hard: { 'requests.cpu': '8' } },
    },
  });
  if (!objects) return name;
  const namespace = profileNamespace(profile);
  namespace.metadata = Object.assign({}, namespace.metadata, { labels: { ...UPSTREAM_LABELS } });
  await client.create(resources.namespaces, namespace, { fieldManager: 'manager' });
  for (const object of upstreamObjects(profile)) {
    const kind =
      object.kind === 'ServiceAccount'
        ? resources.serviceAccounts
        : object.kind === 'RoleBinding'
          ? resources.roleBindings
          : resources.resourceQuotas;
    await client.create(kind, object, { namespace: name, fieldManager: 'manager' });
  }
  return name;
}

let plain = '';
let beta = '';
let excepted = '';

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'takeover');
  client = testClient(env);
  file = fileProfiles(env);
  plain = await upstreamProfile('plain', 'v1');
  beta = await upstreamProfile('beta', 'v1beta1');
  excepted = await upstreamProfile('excepted', 'v1');
  // An administrator's exceptions, as `kubectl label --overwrite` makes them.
  await client.patch(
    resources.namespaces,
    excepted,
    {
      metadata: {
        labels: {
          'istio-injection': 'disabled',
          'katib.kubeflow.org/metrics-collector-injection': 'disabled',
          'pipelines.kubeflow.org/enabled': 'false',
        },
      },
    },
    { type: 'merge', fieldManager: 'kubectl-label' },
  );
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        logLines.push(JSON.parse(line) as (typeof logLines)[number]);
      }
      done();
    },
  });
  running = await runController(env, CONFIG, {
    profileSelector: file.selector,
    resyncSeconds: 1,
    logger: pino({ level: 'info' }, sink),
  });
  for (const name of [plain, beta, excepted]) {
    await condition(client, name, (c) => c.status === 'True', 'reconciled');
  }
});

afterAll(async () => {
  await running?.stop();
  for (const name of made) {
    await client
      .patch(resources.profiles, name, { metadata: { finalizers: null } }, { type: 'merge' })
      .catch(() => undefined);
    await client.delete(resources.profiles, name).catch(() => undefined);
  }
  client.close();
  await env?.release();
});

const labelsOf = async (name: string) =>
  (await read<V1Namespace>(client, 'namespaces', name))?.metadata?.labels ?? {};

describe('objects the upstream controller made', () => {
  it('are adopted, and said so in the log and the metric, never "created"', async () => {
    const registry = running?.client.registry;
    if (!registry) throw new Error('no controller');
    const writes = (action: string) => objectWrites(registry, action);
    // Namespace, two ServiceAccounts, three RoleBindings and the quota, for each of 3 Profiles.
    expect(await writes('adopted')).toBe(21);
    expect(await writes('created')).toBe(0);
    const adopted = logLines.filter((l) => l.msg === 'adopted').map((l) => l.object);
    expect(adopted).toContain(`ServiceAccount ${plain}/default-editor`);
    expect(adopted).toContain(`Namespace ${beta}`);
    expect(logLines.filter((l) => l.msg === 'created')).toEqual([]);
  });
});

describe('an administrator’s exceptions on a namespace', () => {
  it('survive resyncs; a label kfx enforces is put back, with an Event', async () => {
    const registry = running?.client.registry;
    if (!registry) throw new Error('no controller');
    const reconciles = () =>
      counterTotal(registry, 'kfx_controller_reconcile_total', (l) => l.name === 'profiles');
    const before = await reconciles();
    await waitFor(
      async () => {
        const count = await reconciles();
        return count >= before + 6
          ? { done: true, value: count }
          : { done: false, saw: `${count - before} reconciles` };
      },
      { description: 'two resyncs of the Profiles', timeoutMs: 30_000 },
    );
    expect(await labelsOf(excepted)).toMatchObject({
      'istio-injection': 'disabled',
      'katib.kubeflow.org/metrics-collector-injection': 'disabled',
      // Enforced by the configuration: back to its value.
      'pipelines.kubeflow.org/enabled': 'true',
      'app.kubernetes.io/part-of': 'kubeflow-profile',
    });
    expect(
      await eventMessages(client, excepted, 'LabelReverted', /pipelines\.kubeflow\.org\/enabled/),
    ).toMatch(/false/);
    // The other namespaces keep upstream's labels, and `""` removed the serving label from all.
    const others = await labelsOf(plain);
    expect(others).toMatchObject({
      'istio-injection': 'enabled',
      'katib.kubeflow.org/metrics-collector-injection': 'enabled',
    });
    for (const name of [plain, beta, excepted]) {
      expect(await labelsOf(name)).not.toHaveProperty('serving.kubeflow.org/inferenceservice');
    }
  });
});

describe('a label kfx stops asserting on a namespace it adopted', () => {
  it('stays: the upstream controller set it, and kfx never owned it alone', async () => {
    if (!env) throw new Error('no control plane');
    await running?.stop();
    const before = await labelsOf(plain);
    // The site drops Katib's label from its configuration and turns Istio injection off.
    const namespace = { ...CONFIG.namespace, labels: { ...CONFIG.namespace.labels } };
    delete (namespace.labels as Record<string, string>)[
      'katib.kubeflow.org/metrics-collector-injection'
    ];
    running = await runController(
      env,
      { ...CONFIG, namespace: { ...namespace, istioInjection: false } },
      { profileSelector: file.selector, resyncSeconds: 1 },
    );
    const registry = running.client.registry;
    await waitFor(
      async () => {
        const count = await counterTotal(registry, 'kfx_controller_reconcile_total');
        return count >= 6
          ? { done: true, value: undefined }
          : { done: false, saw: `${count} reconciles` };
      },
      {
        description: 'the Profiles reconciled twice with the new configuration',
        timeoutMs: 30_000,
      },
    );
    expect(await labelsOf(plain)).toMatchObject({
      'katib.kubeflow.org/metrics-collector-injection':
        before['katib.kubeflow.org/metrics-collector-injection'],
      'istio-injection': 'enabled',
    });
  });
});

describe('deleting a migrated Profile', () => {
  it('goes through, as v1 and as v1beta1: the Profile is gone, its namespace terminating', async () => {
    await client.delete(resources.profiles, plain);
    await client.delete(PROFILES_V1BETA1, beta);
    for (const name of [plain, beta]) {
      await waitFor(
        async () => {
          const profile = await getOrUndefined<Profile>(client, resources.profiles, name);
          const namespace = await read<V1Namespace>(client, 'namespaces', name);
          const terminating = !namespace || Boolean(namespace.metadata?.deletionTimestamp);
          return !profile && terminating
            ? { done: true, value: undefined }
            : {
                done: false,
                saw: `Profile ${profile ? `finalizers ${JSON.stringify(profile.metadata?.finalizers)}` : 'gone'}, namespace ${terminating ? 'terminating' : 'active'}`,
              };
        },
        { description: `Profile ${name} deleted and its namespace terminating`, timeoutMs: 30_000 },
      );
    }
  });

  it('held by a finalizer kfx does not own, says which one in its condition', async () => {
    const held = await upstreamProfile('held', 'v1', [FINALIZER, 'example.com/hold'], false);
    await condition(client, held, (c) => c.status === 'True', 'reconciled');
    await client.delete(resources.profiles, held);
    const stuck = await condition(
      client,
      held,
      (c) => (c.message ?? '').includes('example.com/hold'),
      'the finalizer named',
    );
    expect(stuck.status).toBe('False');
    const profile = await read<Profile>(client, 'profiles', held);
    expect(profile?.metadata?.finalizers).toEqual(['example.com/hold']);
  });
});
