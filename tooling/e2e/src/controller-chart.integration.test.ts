// The kfx-controller chart installed for real on a control plane with kwok: every object
// accepted (RBAC for every reconciler, template files, leader-election Role), bad values refused
// with their names, a new configuration or template rolling the Pods, and an uninstall that
// leaves nothing behind, ClusterRole and ClusterRoleBinding included.
// It owns its control plane: it installs the chart's ClusterRole and ClusterRoleBinding (fixed
// names), and kfx-controller acts on every Profile of the cluster.
import type { V1ClusterRole, V1Deployment, V1ReplicaSet } from '@kubernetes/client-node';
import { startControlPlane, waitFor, type ControlPlane } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chartRelease } from './chart-release.js';
import { createSettledNamespace, exists, getJson } from './cluster.js';
import { CHARTS, helmOk } from './helm.js';
import { difference, inventory } from './inventory.js';
import { installedObjects, releaseRevision, waitForNothingLeft } from './release.js';

const NAMESPACE = 'kfx-system';
const RELEASE = 'kfx-controller';

let env: ControlPlane | undefined;
let kubeconfig = '';

beforeAll(async () => {
  env = await startControlPlane({ components: ['controller-manager', 'scheduler', 'kwok'] });
  kubeconfig = env.kubeconfigPath;
  await createSettledNamespace(kubeconfig, NAMESPACE);
});

afterAll(async () => {
  await env?.stop();
});

const VALUES = {
  config: {
    reconcilers: {
      quotas: { labelPrefix: 'quotas.statcan.gc.ca' },
      limitrange: { name: 'default-container-limits' },
      rbac: {
        bindings: [
          {
            name: 'profile-support',
            clusterRole: 'profile-support',
            subjects: [{ kind: 'Group', name: 'support' }],
          },
        ],
      },
      'network-policies': {},
      'proxy-config': { httpProxy: 'http://proxy.corp.example:3128' },
    },
  },
  templates: {
    'owner.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: owner\ndata:\n  owner: "{{ owner.name }}"\n',
  },
};

const release = chartRelease(CHARTS.controller, RELEASE, NAMESPACE, () => kubeconfig);
const { common, install, replicaSets } = release;
/** `helm upgrade --reuse-values` with `--set`/`--set-json` arguments, waiting for the rollout. */
const upgrade = (...set: string[]) =>
  helmOk([
    'upgrade',
    RELEASE,
    CHARTS.controller,
    ...common(),
    '--reuse-values',
    ...set,
    '--wait',
    '--timeout',
    '120s',
  ]);

/** Waits for the rollout after an upgrade: one new ReplicaSet with every Pod ready, old ones at 0. */
async function rolledOnto(known: readonly string[]): Promise<V1ReplicaSet> {
  return waitFor(
    async () => {
      const sets = await replicaSets();
      const fresh = sets.filter((set) => !known.includes(set.metadata?.name ?? ''));
      const oldRunning = sets.some(
        (set) => known.includes(set.metadata?.name ?? '') && (set.status?.replicas ?? 0) > 0,
      );
      const [only] = fresh;
      return fresh.length === 1 && only?.status?.readyReplicas === 2 && !oldRunning
        ? { done: true, value: only }
        : {
            done: false,
            saw: sets
              .map((s) => `${s.metadata?.name ?? ''}: ${s.status?.readyReplicas ?? 0} ready`)
              .join(', '),
          };
    },
    { description: 'a new ReplicaSet with 2 ready Pods, the old ones at 0', timeoutMs: 60_000 },
  );
}

const names = (sets: V1ReplicaSet[]) => sets.map((set) => set.metadata?.name ?? '');

describe('helm install of the kfx-controller chart', () => {
  let before: string[] = [];

  it('refuses bad values, naming each, and installs nothing', async () => {
    const cases: [string[], RegExp][] = [
      [['--set', 'replicaCount=0'], /replicaCount.*minimum: got 0, want 1/],
      [
        ['--set', 'leaderElection.enabled=false'],
        /replicaCount above 1 needs leaderElection\.enabled/,
      ],
      [['--set', 'config.workers=100'], /config\/workers.*maximum: got 100, want 64/],
      [
        ['--set-json', 'config.reconcilers.quotaz={}'],
        /additional properties 'quotaz' not allowed/,
      ],
      [['--set', 'config.reconcilers.quotas=true'], /config\/reconcilers\/quotas/],
    ];
    before = await release.expectRefused(cases);
  });

  it('installs: the apiserver accepts every object and the two replicas run', async () => {
    const result = await install(VALUES, '--wait', '--timeout', '120s');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const installed = await installedObjects(kubeconfig, RELEASE, NAMESPACE);
    expect(installed.map((id) => id.split(' ')[0]).sort()).toEqual([
      'ClusterRole.rbac.authorization.k8s.io',
      'ClusterRoleBinding.rbac.authorization.k8s.io',
      'ConfigMap',
      'ConfigMap',
      'Deployment.apps',
      'PodDisruptionBudget.policy',
      'Role.rbac.authorization.k8s.io',
      'RoleBinding.rbac.authorization.k8s.io',
      'Service',
      'ServiceAccount',
    ]);
    const added = difference(before, await inventory(kubeconfig)).added;
    for (const id of installed) expect(added).toContain(id);

    const role = await getJson<V1ClusterRole>(kubeconfig, ['clusterrole', RELEASE]);
    const resources = (role.rules ?? []).flatMap((rule) => rule.resources ?? []);
    for (const kind of [
      'resourcequotas',
      'limitranges',
      'rolebindings',
      'networkpolicies',
      'configmaps',
    ]) {
      expect(resources).toContain(kind);
    }
    const deployment = await getJson<V1Deployment>(kubeconfig, ['deployment', RELEASE], NAMESPACE);
    expect(deployment.status?.readyReplicas).toBe(2);
  });

  it('a new configuration rolls the Pods onto a new ReplicaSet', async () => {
    const known = names(await replicaSets());
    const revision = await releaseRevision(kubeconfig, RELEASE, NAMESPACE);
    await upgrade('--set', 'config.workers=4');
    expect(await releaseRevision(kubeconfig, RELEASE, NAMESPACE)).toBe(revision + 1);
    const configMap = await getJson<{ data: Record<string, string> }>(
      kubeconfig,
      ['configmap', RELEASE],
      NAMESPACE,
    );
    expect(configMap.data['controller.yaml']).toMatch(/^workers: 4$/m);
    await rolledOnto(known);
  });

  it('a changed template rolls the Pods too', async () => {
    const known = names(await replicaSets());
    const template =
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: owner\ndata:\n  kind: "{{ owner.kind }}"\n';
    await upgrade('--set-json', `templates.owner\\.yaml=${JSON.stringify(template)}`);
    const templates = await getJson<{ data: Record<string, string> }>(
      kubeconfig,
      ['configmap', `${RELEASE}-templates`],
      NAMESPACE,
    );
    expect(templates.data['owner.yaml']).toBe(template);
    await rolledOnto(known);
  });

  it('an upgrade that leaves the configuration alone keeps the Pods', async () => {
    const known = names(await replicaSets()).sort();
    await upgrade('--set', 'podDisruptionBudget.minAvailable=2');
    expect(names(await replicaSets()).sort()).toEqual(known);
  });

  it('uninstalls without leaving anything behind, ClusterRole and binding included', async () => {
    await helmOk(['uninstall', RELEASE, ...common(), '--wait']);
    expect(await exists(kubeconfig, ['clusterrole', RELEASE])).toBe(false);
    expect(await exists(kubeconfig, ['clusterrolebinding', RELEASE])).toBe(false);
    await waitForNothingLeft(kubeconfig, before);
  });
});
