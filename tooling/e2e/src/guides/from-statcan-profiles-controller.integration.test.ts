// The check of docs/migration/from-statcan-profiles-controller.md: the guide's two values files,
// run by the kfx-controller binary as the chart's ServiceAccount with exactly the chart's RBAC,
// give the guide's Profile the quota, limit range and binding the old controller made (taking the
// old objects over, and from scratch for a new Profile), carry the site's network policies over
// in place with their old specs, keep the Artifactory Secret copied from `das`, leave exactly the
// replaced policies for the rollout's delete step, and end with the NetworkPolicies the guide
// lists.
// It owns its control plane: kfx-controller acts on every Profile of the cluster.
import type {
  KubernetesObject,
  V1LimitRange,
  V1NetworkPolicy,
  V1ResourceQuota,
  V1RoleBinding,
  V1Secret,
} from '@kubernetes/client-node';
import {
  applyManifests,
  profileNamespace,
  startControlPlane,
  waitFor,
  type ControlPlane,
} from '@kfx/testenv';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, listJson } from '../cluster.js';
import { startControllerFromChart, type ControllerUnderTest } from '../controller-server.js';
import { readGuide } from '../guide.js';
import { runGuideCommands } from '../guide-commands.js';
import { CHARTS, renderChart } from '../helm.js';
import { commandLines } from '../shell-words.js';

const guide = readGuide('from-statcan-profiles-controller.md');
const dir = mkdtempSync(join(tmpdir(), 'kfx-e2e-statcan-'));
let env: ControlPlane | undefined;
let controller: ControllerUnderTest | undefined;
let kubeconfig = '';

interface Profile {
  apiVersion: string;
  kind: string;
  metadata: { name: string; uid?: string; labels?: Record<string, string> };
  spec?: unknown;
}
const [profile] = guide.yaml<Profile>('profile');
/** Objects as a guide's YAML holds them: plain JSON. */
interface Manifest {
  kind?: string;
  metadata?: Record<string, unknown>;
  [field: string]: unknown;
}
const old = guide.yaml<Manifest>('old-objects');
const oldPolicies = old.filter((o) => o.kind === 'NetworkPolicy') as V1NetworkPolicy[];

type Values = Record<string, unknown>;
const isMap = (v: unknown): v is Values => typeof v === 'object' && v !== null && !Array.isArray(v);
/** What helm does with two --values files: maps merged, anything else replaced. */
function mergeValues(a: Values, b: Values): Values {
  const out: Values = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const left = out[key];
    out[key] = isMap(left) && isMap(value) ? mergeValues(left, value) : value;
  }
  return out;
}
const values = mergeValues(
  guide.yaml<Values>('controller-values')[0] ?? {},
  guide.yaml<Values>('site-policies')[0] ?? {},
);

/** The Artifactory Secret in the guide's `das` namespace. */
const source: Manifest = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'artifactory-creds', namespace: 'das' },
  stringData: { Username: 'svc-artifactory', Token: 'current-token' },
};
const stored: {
  quota?: V1ResourceQuota;
  limitRange?: V1LimitRange;
  binding?: V1RoleBinding;
  policies: Map<string, V1NetworkPolicy>;
  source?: V1Secret;
} = { policies: new Map() };

const RBAC_KINDS = ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'];
const guideOptions = () => ({ cwd: dir, kubeconfigPath: kubeconfig });

beforeAll(async () => {
  if (!profile) throw new Error(`${guide.file}: the profile block holds no Profile`);
  env = await startControlPlane();
  kubeconfig = env.kubeconfigPath;
  // The guide's Profile, and a new one with the same labels that has no old objects.
  const profiles = await applyManifests(kubeconfig, [
    profile,
    { ...profile, metadata: { ...profile.metadata, name: 'bob' } },
  ] as KubernetesObject[]);
  // The upstream Kubeflow profile controller made their namespaces, owned by the Profiles.
  await applyManifests(kubeconfig, profiles.map(profileNamespace));
  const alice = profiles.find((p) => p.metadata?.name === 'alice');
  // What the old controller left in the Profile's namespace, owned by the Profile as it made
  // them, as the API server stores them; and a stale copy of the Artifactory Secret.
  const owned = old.map((object) => ({
    ...object,
    metadata: {
      ...object.metadata,
      ownerReferences: [
        {
          apiVersion: 'kubeflow.org/v1',
          kind: 'Profile',
          name: 'alice',
          uid: alice?.metadata?.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
  }));
  const applied = await applyManifests(kubeconfig, owned);
  stored.quota = applied.find((o) => o.kind === 'ResourceQuota') as V1ResourceQuota;
  stored.limitRange = applied.find((o) => o.kind === 'LimitRange') as V1LimitRange;
  stored.binding = applied.find((o) => o.kind === 'RoleBinding') as V1RoleBinding;
  for (const policy of applied.filter((o) => o.kind === 'NetworkPolicy')) {
    stored.policies.set(policy.metadata?.name ?? '', policy);
  }
  await applyManifests(kubeconfig, [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'das' } },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kfx-system' } },
    {
      ...source,
      metadata: { name: 'artifactory-creds', namespace: 'alice' },
      stringData: { Username: 'svc-artifactory', Token: 'old-token' },
    },
  ] as KubernetesObject[]);
  const [sourceStored] = await applyManifests(kubeconfig, [source]);
  stored.source = sourceStored as V1Secret;
  // Rollout step 2: the old copies marked as copies, so that kfx takes them over.
  await runGuideCommands(commandLines(guide.text('mark-copies')), guideOptions());

  // The controller runs as the chart's ServiceAccount, with the chart's RBAC and nothing more.
  const rendered = await renderChart(CHARTS.controller, {
    release: 'kfx-controller',
    namespace: 'kfx-system',
    values,
  });
  await applyManifests(
    kubeconfig,
    rendered.filter((o) => RBAC_KINDS.includes(o.kind ?? '')),
  );
  const identity = env.userKubeconfig('system:serviceaccount:kfx-system:kfx-controller', [
    'system:serviceaccounts',
    'system:serviceaccounts:kfx-system',
  ]);
  controller = await startControllerFromChart({ values, kubeconfigPath: identity.path, dir });
});

afterAll(async () => {
  await controller?.stop();
  await env?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The object once kfx-controller has applied it (its managed-by label says so). */
async function managed<T extends KubernetesObject>(kind: string, name: string, namespace: string) {
  return waitFor(
    async () => {
      const object = await getJson<T>(kubeconfig, [kind, name], namespace);
      return object.metadata?.labels?.['app.kubernetes.io/managed-by'] === 'kfx'
        ? { done: true, value: object }
        : { done: false, saw: `labels ${JSON.stringify(object.metadata?.labels ?? {})}` };
    },
    { description: `kfx-controller to apply ${kind} ${namespace}/${name}`, timeoutMs: 60_000 },
  );
}

/** The non-blank lines of a text block (indented when it sits in a list item) or an output. */
const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

const policyNames = async (namespace: string) =>
  (await listJson(kubeconfig, ['networkpolicies'], namespace))
    .map((p) => `networkpolicy.networking.k8s.io/${p.metadata?.name ?? ''}`)
    .sort();

describe(guide.file, () => {
  it('the guide shows the old objects it compares with', () => {
    expect(old.map((o) => o.kind)).toEqual([
      'ResourceQuota',
      'LimitRange',
      'RoleBinding',
      ...oldPolicies.map(() => 'NetworkPolicy'),
    ]);
    expect(oldPolicies.length).toBeGreaterThanOrEqual(4);
    expect(stored.quota?.spec?.hard).toBeDefined();
  });

  it.each(['alice', 'bob'])(
    'Profile %s gets the quota, limit range and binding the old controller made',
    async (namespace) => {
      const quota = await managed<V1ResourceQuota>('resourcequota', 'quotas', namespace);
      expect(quota.spec?.hard).toEqual(stored.quota?.spec?.hard);
      expect(quota.metadata?.labels?.['kfx.dev/reconciler']).toBe('quotas');

      const limitRange = await managed<V1LimitRange>(
        'limitrange',
        'default-container-limits',
        namespace,
      );
      expect(limitRange.spec?.limits).toEqual(stored.limitRange?.spec?.limits);

      const binding = await managed<V1RoleBinding>('rolebinding', 'profile-support', namespace);
      expect(binding.roleRef).toEqual(stored.binding?.roleRef);
      expect(binding.subjects).toEqual(stored.binding?.subjects);
    },
  );

  it('carries the site policies over in place, with their old specs, for old and new Profiles', async () => {
    const replaced = lines(guide.text('replaced-policies')).map((line) => line.split('/')[1]);
    const carried = oldPolicies
      .map((p) => p.metadata?.name ?? '')
      .filter((name) => !replaced.includes(name));
    expect(carried.length).toBeGreaterThan(0);
    for (const name of carried) {
      const before = stored.policies.get(name);
      const taken = await managed<V1NetworkPolicy>('networkpolicy', name, 'alice');
      // The same object (never deleted and made again, so never missing), the same spec.
      expect(taken.metadata?.uid, name).toBe(before?.metadata?.uid);
      expect(taken.spec, name).toEqual(before?.spec);
      const made = await managed<V1NetworkPolicy>('networkpolicy', name, 'bob');
      expect(made.spec, name).toEqual(before?.spec);
    }
  });

  it('keeps the Artifactory Secret copied from das, the old copy taken over and brought up to date', async () => {
    for (const namespace of ['alice', 'bob']) {
      const copy = await waitFor(
        async () => {
          const secret = await getJson<V1Secret>(
            kubeconfig,
            ['secret', 'artifactory-creds'],
            namespace,
          );
          return secret.data?.Token === stored.source?.data?.Token
            ? { done: true, value: secret }
            : { done: false, saw: JSON.stringify(secret.metadata?.labels ?? {}) };
        },
        { description: `the Secret copied into ${namespace}`, timeoutMs: 60_000 },
      );
      expect(copy.data).toEqual(stored.source?.data);
      expect(copy.metadata?.annotations?.['secrets.kfx.dev/source']).toBe('das/artifactory-creds');
      expect(copy.metadata?.labels?.['app.kubernetes.io/managed-by']).toBe('kfx');
    }
  });

  it('leaves exactly the replaced policies to step 3, and step 4 deletes only them', async () => {
    // The preset's policies exist before the old ones go, so nothing is ever let through less.
    await managed('networkpolicy', 'allow-same-namespace', 'alice');
    await managed('networkpolicy', 'allow-egress-internet', 'alice');
    await managed('networkpolicy', 'allow-knative', 'alice');
    const [listed] = await runGuideCommands(
      commandLines(guide.text('old-policies')),
      guideOptions(),
    );
    expect(lines(listed?.stdout ?? '')).toEqual(lines(guide.text('replaced-policies')));
    await runGuideCommands(commandLines(guide.text('delete-replaced')), guideOptions());
  });

  it.each(['alice', 'bob'])(
    'Profile %s ends with the NetworkPolicies the guide lists',
    async (namespace) => {
      const expected = lines(guide.text('network-policies'));
      const names = await waitFor(
        async () => {
          const got = await policyNames(namespace);
          return JSON.stringify(got) === JSON.stringify(expected)
            ? { done: true, value: got }
            : { done: false, saw: got.join(', ') };
        },
        { description: `the NetworkPolicies in ${namespace}`, timeoutMs: 60_000 },
      );
      expect(names).toEqual(expected);
    },
  );

  it('switches policies by the same Profile labels and values as before', async () => {
    await applyManifests(kubeconfig, [
      {
        apiVersion: 'kubeflow.org/v1',
        kind: 'Profile',
        metadata: {
          name: 'bob',
          labels: {
            'sourcecontrol.statcan.gc.ca/enabled': 'false',
            'state.aaw.statcan.gc.ca/exists-non-cloud-main-user': 'false',
          },
        },
      },
    ] as KubernetesObject[]);
    await waitFor(
      async () => {
        const got = await policyNames('bob');
        const gitea = got.filter((n) => n.includes('gitea'));
        const cloudMain = got.some((n) =>
          n.endsWith('/allow-employee-egress-to-cloud-main-system'),
        );
        return gitea.length === 0 && cloudMain
          ? { done: true, value: got }
          : { done: false, saw: got.join(', ') };
      },
      {
        description: 'the Gitea policies gone and the cloud-main one made in bob',
        timeoutMs: 60_000,
      },
    );
  });
});
