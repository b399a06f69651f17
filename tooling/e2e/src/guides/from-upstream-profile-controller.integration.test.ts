// The check of docs/migration/from-upstream-profile-controller.md: the take-over of a cluster the
// upstream Kubeflow profile controller ran, its state exactly as that controller leaves it.
// Three Profiles with its finalizer `profile-finalizer` (one created as v1beta1, one with an
// AwsIamForServiceAccount plugin applied), each namespace and the guide's old objects, written by
// that controller's field manager and owned by the Profile; KFAM's bindings of a contributor and
// of a group; an administrator's exceptions (Istio injection and Katib's metrics collector off)
// on one namespace; the upstream controller's Deployment. The guide's commands run word for word
// (`kubectl scale` of that Deployment, `helm install` with the guide's values as values.yaml;
// the test adds resyncs every 2 s to see several), then the built kfx-controller runs with the
// configuration and the RBAC the release installed (no node runs its Pods here). It proves:
// every old object is the same object, logged and counted as adopted, none as created; KFAM's
// bindings are untouched and the owner's reads as KFAM reads it; the exceptions survive resyncs;
// nothing is deleted when kfx-controller stops; and every Profile, deleted as v1 or v1beta1, is
// gone with its namespace terminating within 30 s.
// It owns its control plane: kfx-controller acts on every Profile of the cluster, and the
// release's cluster-wide objects have fixed names. It runs on the oldest minor too.
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubernetesObject, V1Namespace, V1RoleBinding } from '@kubernetes/client-node';
import {
  applyManifests,
  CRDS,
  installCrds,
  kubectl,
  parseYamlDocuments,
  profileNamespace,
  startControlPlane,
  waitFor,
  type ControlPlane,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, listJson } from '../cluster.js';
import { startControllerFromRelease, type ControllerUnderTest } from '../controller-server.js';
import { readGuide } from '../guide.js';
import { runGuideCommands } from '../guide-commands.js';
import { commandLines } from '../shell-words.js';

const guide = readGuide('from-upstream-profile-controller.md');
const root = fileURLToPath(new URL('../../../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'kfx-e2e-upstream-profiles-'));
/** The upstream controller's field manager (a controller-runtime binary's default). */
const UPSTREAM_MANAGER = 'manager';
const FINALIZER = 'profile-finalizer';
const RBAC = 'rbac.authorization.k8s.io';
const BOB_ROLE = 'arn:aws:iam::123456789012:role/kf-bob';
/** The Profiles, and the version each was created as. */
const PROFILES = [
  { name: 'alice', version: 'v1' },
  { name: 'bob', version: 'v1beta1' },
  { name: 'carol', version: 'v1' },
] as const;

let env: ControlPlane | undefined;
let controller: ControllerUnderTest | undefined;
let kubeconfig = '';
/** `Kind/namespace/name` → uid of everything the upstream controller made. */
const uids = new Map<string, string | undefined>();
/** KFAM's objects → resourceVersion: kfx must never write them. */
const kfamVersions = new Map<string, string | undefined>();

const key = (object: KubernetesObject) =>
  `${object.kind ?? ''}/${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;

/** The guide's old objects for a Profile (its name put in for alice's), as upstream made them. */
function oldObjects(profile: KubernetesObject): KubernetesObject[] {
  const name = profile.metadata?.name ?? '';
  const { ownerReferences } = profileNamespace(profile).metadata ?? {};
  const text = guide.text('old-objects').replaceAll('alice', name);
  return parseYamlDocuments<KubernetesObject>(text, 'old-objects').map((object) => {
    const metadata = Object.assign({}, object.metadata, { ownerReferences });
    // The plugin upstream applied: bob's default-editor carries the role his Profile names.
    if (name === 'bob' && object.kind === 'ServiceAccount' && metadata.name === 'default-editor') {
      metadata.annotations = { 'eks.amazonaws.com/role-arn': BOB_ROLE };
    }
    return { ...object, metadata };
  });
}

/** What KFAM makes when an owner shares a namespace: a binding per user or group. */
function kfamBinding(
  namespace: string,
  name: string,
  subject: { kind: 'User' | 'Group'; name: string },
  role: 'edit' | 'view',
): KubernetesObject {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: 'RoleBinding',
    metadata: { name, namespace, annotations: { user: subject.name, role } },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: `kubeflow-${role}` },
    subjects: [{ apiGroup: RBAC, ...subject }],
  } as KubernetesObject;
}

/**
 * Creates the objects as the upstream controller wrote them (its field manager, no kfx marks);
 * `Kind/namespace/name` → uid of each.
 */
async function asUpstream(objects: KubernetesObject[]): Promise<[string, string][]> {
  const out = await kubectl(
    kubeconfig,
    [
      'create',
      '-f',
      '-',
      `--field-manager=${UPSTREAM_MANAGER}`,
      '-o',
      'jsonpath={.kind}/{.metadata.namespace}/{.metadata.name}={.metadata.uid}{"\\n"}',
    ],
    objects.map((o) => JSON.stringify(o)).join('\n---\n'),
  );
  return out
    .split('\n')
    .filter(Boolean)
    .map((line): [string, string] => {
      const [id = '', uid = ''] = line.split('=');
      return [id, uid];
    });
}

beforeAll(async () => {
  env = await startControlPlane({ components: ['controller-manager'] });
  kubeconfig = env.kubeconfigPath;
  await installCrds(kubeconfig, [CRDS.istioAuthorizationPolicy]);
  // What Kubeflow installs besides: its roles, and the upstream controller's Deployment.
  await applyManifests(kubeconfig, [
    ...['admin', 'edit', 'view'].map((role) => ({
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: `kubeflow-${role}` },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
    })),
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kubeflow' } },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'profiles-deployment', namespace: 'kubeflow' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { 'kustomize.component': 'profiles' } },
        template: {
          metadata: { labels: { 'kustomize.component': 'profiles' } },
          spec: {
            containers: [{ name: 'manager', image: 'kubeflownotebookswg/profile-controller' }],
          },
        },
      },
    } as KubernetesObject,
  ]);
  for (const { name, version } of PROFILES) {
    const [profile] = await applyManifests(kubeconfig, [
      {
        apiVersion: `kubeflow.org/${version}`,
        kind: 'Profile',
        metadata: { name, finalizers: [FINALIZER] },
        spec: {
          owner: { kind: 'User', name: `${name}@example.com` },
          resourceQuotaSpec: { hard: { 'requests.cpu': '8' } },
          ...(name === 'bob'
            ? {
                plugins: [
                  {
                    kind: 'AwsIamForServiceAccount',
                    spec: { awsIamRole: BOB_ROLE, annotateOnly: true },
                  },
                ],
              }
            : {}),
        },
      } as KubernetesObject,
    ]);
    if (!profile) throw new Error(`Profile ${name} was not made`);
    for (const [id, uid] of await asUpstream(oldObjects(profile))) uids.set(id, uid);
  }
  // The owner shared alice's namespace with a user and a group through the dashboard (KFAM).
  await applyManifests(kubeconfig, [
    kfamBinding(
      'alice',
      'user-dave-example-com-clusterrole-edit',
      { kind: 'User', name: 'dave@example.com' },
      'edit',
    ),
    kfamBinding(
      'alice',
      'group-data-team-clusterrole-view',
      { kind: 'Group', name: 'data-team' },
      'view',
    ),
  ]);
  for (const binding of await listJson(kubeconfig, ['rolebindings'], 'alice')) {
    if (
      binding.metadata?.name?.startsWith('user-') ||
      binding.metadata?.name?.startsWith('group-')
    ) {
      kfamVersions.set(key(binding), binding.metadata.resourceVersion);
    }
  }
  // An administrator turned Istio injection and Katib's metrics collector off for carol.
  await kubectl(kubeconfig, [
    'label',
    'namespace',
    'carol',
    'istio-injection=disabled',
    'katib.kubeflow.org/metrics-collector-injection=disabled',
    '--overwrite',
  ]);

  // The guide's commands, word for word, in a folder holding the clone's charts and values.yaml.
  symlinkSync(join(root, 'apps'), join(work, 'apps'));
  writeFileSync(join(work, 'values.yaml'), guide.text('controller-values'));
  const commands = commandLines(guide.text('install')).map((words) =>
    words[0] === 'helm' ? [...words, '--set', 'config.resyncSeconds=2'] : words,
  );
  await runGuideCommands(commands, { cwd: work, kubeconfigPath: kubeconfig });
  controller = await startRelease();
});

afterAll(async () => {
  await controller?.stop();
  await env?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** kfx-controller with the installed release's configuration, as its ServiceAccount. */
function startRelease(): Promise<ControllerUnderTest> {
  if (!env) throw new Error('no control plane');
  const identity = env.userKubeconfig('system:serviceaccount:kfx-system:kfx-controller', [
    'system:serviceaccounts',
    'system:serviceaccounts:kfx-system',
  ]);
  return startControllerFromRelease({
    release: 'kfx-controller',
    namespace: 'kfx-system',
    kubeconfigPath: kubeconfig,
    identityKubeconfigPath: identity.path,
    dir: mkdtempSync(join(work, 'controller-')),
  });
}

/** The value of a metric the controller serves, summed over the series `labels` select. */
async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${controller?.metricsUrl ?? ''}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .filter((line) => Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/** What the upstream controller made, as the cluster holds it now. */
async function upstreamObjectsNow(): Promise<KubernetesObject[]> {
  const kinds = ['rolebindings', 'serviceaccounts', 'resourcequotas', 'authorizationpolicies'];
  const found: KubernetesObject[] = [];
  for (const { name } of PROFILES) {
    found.push(await getJson(kubeconfig, ['namespace', name]));
    for (const kind of kinds) {
      const items = await listJson(kubeconfig, [kind], name);
      found.push(...items.filter((o) => uids.has(key(o))));
    }
  }
  return found;
}

describe(guide.file, () => {
  it('takes every object over in place, logged and counted as adopted, none as created', async () => {
    await waitFor(
      async () => {
        const taken = (await upstreamObjectsNow()).filter(
          (o) => o.metadata?.labels?.['app.kubernetes.io/managed-by'] === 'kfx',
        );
        return taken.length === uids.size
          ? { done: true, value: undefined }
          : { done: false, saw: `${taken.length} of ${uids.size} taken over` };
      },
      { description: 'kfx-controller to take the old objects over', timeoutMs: 60_000 },
    );
    const now = await upstreamObjectsNow();
    expect(new Map(now.map((o) => [key(o), o.metadata?.uid]))).toEqual(uids);
    expect(await metric('kfx_profile_controller_object_writes_total', { action: 'adopted' })).toBe(
      uids.size,
    );
    expect(await metric('kfx_profile_controller_object_writes_total', { action: 'created' })).toBe(
      0,
    );
    const log = readFileSync(controller?.app.logFile ?? '', 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg?: string; object?: string; reason?: string });
    const adopted = log.filter((l) => l.msg === 'adopted' && l.object !== undefined);
    expect(adopted.map((l) => l.object)).toContain('ServiceAccount bob/default-editor');
    expect(adopted.find((l) => l.object === 'Namespace carol')?.reason).toMatch(
      new RegExp(`written by .*${UPSTREAM_MANAGER}`),
    );
    expect(log.filter((l) => l.msg === 'created')).toEqual([]);
    // The plugin's identity, within the guide's ceilings, stays on bob's default-editor.
    const editor = await getJson(kubeconfig, ['serviceaccount', 'default-editor'], 'bob');
    expect(editor.metadata?.annotations?.['eks.amazonaws.com/role-arn']).toBe(BOB_ROLE);
  });

  it('keeps KFAM’s bindings untouched, and the owner’s as KFAM reads it', async () => {
    for (const [object, version] of kfamVersions) {
      const [, namespace = '', name = ''] = object.split('/');
      const binding = await getJson<V1RoleBinding>(kubeconfig, ['rolebinding', name], namespace);
      expect(binding.metadata?.resourceVersion, object).toBe(version);
    }
    const admin = await getJson<V1RoleBinding>(
      kubeconfig,
      ['rolebinding', 'namespaceAdmin'],
      'alice',
    );
    expect(admin.metadata?.annotations).toMatchObject({ user: 'alice@example.com', role: 'admin' });
    expect(admin.subjects).toHaveLength(1);
    expect(admin.roleRef.name).toBe('kubeflow-admin');
    expect(admin.metadata?.ownerReferences).toHaveLength(1);
  });

  it('keeps the administrator’s exceptions through resyncs', async () => {
    const before = await metric('kfx_controller_reconcile_total', { name: 'profiles' });
    await waitFor(
      async () => {
        const count = await metric('kfx_controller_reconcile_total', { name: 'profiles' });
        return count >= before + 2 * PROFILES.length
          ? { done: true, value: undefined }
          : { done: false, saw: `${count - before} reconciles` };
      },
      { description: 'two resyncs of every Profile', timeoutMs: 60_000 },
    );
    const carol = await getJson<V1Namespace>(kubeconfig, ['namespace', 'carol']);
    expect(carol.metadata?.labels).toMatchObject({
      'istio-injection': 'disabled',
      'katib.kubeflow.org/metrics-collector-injection': 'disabled',
      'pipelines.kubeflow.org/enabled': 'true',
    });
    const alice = await getJson<V1Namespace>(kubeconfig, ['namespace', 'alice']);
    expect(alice.metadata?.labels?.['istio-injection']).toBe('enabled');
  });

  it('deletes nothing when kfx-controller stops, so the upstream controller can take over again', async () => {
    await controller?.stop();
    controller = undefined;
    const now = await upstreamObjectsNow();
    expect(new Map(now.map((o) => [key(o), o.metadata?.uid]))).toEqual(uids);
    controller = await startRelease();
  });

  it('lets every migrated Profile be deleted, as v1 or v1beta1: gone, its namespace terminating', async () => {
    for (const { name, version } of PROFILES) {
      await kubectl(kubeconfig, [
        'delete',
        `profiles.${version}.kubeflow.org`,
        name,
        '--wait=false',
      ]);
    }
    for (const { name } of PROFILES) {
      await waitFor(
        async () => {
          const profiles = await listJson(kubeconfig, ['profiles']);
          const profile = profiles.find((p) => p.metadata?.name === name);
          const namespace = (await listJson(kubeconfig, ['namespaces'])).find(
            (n) => n.metadata?.name === name,
          );
          const terminating = !namespace || Boolean(namespace.metadata?.deletionTimestamp);
          return !profile && terminating
            ? { done: true, value: undefined }
            : {
                done: false,
                saw: `Profile ${profile ? `held by ${JSON.stringify(profile.metadata?.finalizers)}` : 'gone'}, namespace ${terminating ? 'terminating' : 'active'}`,
              };
        },
        { description: `Profile ${name} gone, its namespace terminating`, timeoutMs: 30_000 },
      );
    }
  });
});
