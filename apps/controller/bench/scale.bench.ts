// Benchmark (not a test) of kfx-controller at scale, run with `pnpm run bench:scale` (builds
// first). On a real control plane with Kubeflow's Profile CRD, kfx-controller replaces the upstream
// profile controller (the migration guide's settings: the namespace, default-editor and
// default-viewer with their bindings, the owner's namespaceAdmin, kf-resource-quota and the Istio
// policy: 8 objects per Profile), run as its chart runs it (the NODE_OPTIONS the chart derives from
// its memory limit):
//
// 1. Raw loop: the same 8 objects for BENCH_RAW Profiles, written by server-side applies 16 at a
//    time: what the API server takes on this machine, in Profiles per second.
// 2. Converge: BENCH_PROFILES Profiles created 16 at a time while the controller runs: Profiles per
//    second until every object exists, how long after that every status is written, writes per
//    Profile, CPU, and the controller's peak RSS, side by side with (1).
// 3. Restart: a new controller over the converged cluster with a short resync: its cold start's
//    peak RSS, and the writes it makes over its first reconcile and one resync (target 0).
import { readFileSync } from 'node:fs';
import { inParallel, KubeClient, resources, type KubeObject } from '@kfx/kube-runtime/client';
import { CRDS, installCrds, profileNamespace, startControlPlane } from '@kfx/testenv';
import { pino } from 'pino';
import { controllerConfig, startController, stopAll } from './controller-process.ts';
import { cpu, cpuDelta } from './cpu.ts';
import { metricSum, writeMethods } from './workload.ts';
import { chartMemory } from '../src/testing/helm.ts';

const N = Number(process.env.BENCH_PROFILES ?? 2000);
const RAW = Number(process.env.BENCH_RAW ?? Math.min(N, 500));
const C = 16;
const RESYNC_SECONDS = Number(process.env.BENCH_RESYNC_SECONDS ?? 60);
const WORKERS = process.env.BENCH_WORKERS;

const indices = (count: number) => [...Array(count).keys()];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const perSecond = (count: number, ms: number) => (count / (ms / 1000)).toFixed(1);
const mib = (pid: number, field: 'VmHWM' | 'VmRSS') =>
  Number(
    new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1],
  ) / 1024;

const UPSTREAM = `${WORKERS ? `workers: ${WORKERS}\n` : ''}reconcilers:
  namespace: {}
  rbac:
    bindings:
      - name: namespaceAdmin
        clusterRole: kubeflow-admin
        owner: true
        annotations: { user: '{{ owner.name }}', role: admin }
  profile-quota: {}
  templates:
    shipped: [ns-owner-access-istio]
    values: { userIdHeader: kubeflow-userid }
logLevel: warn
`;

const logger = pino({ level: 'warn' });
const { limitMiB, nodeOptions } = await chartMemory();
console.log(
  `${N} Profiles (raw loop ${RAW}), 8 objects each, ${C} creates at a time; controller with ${nodeOptions} (chart limit ${limitMiB} Mi)`,
);
const env = await startControlPlane();
const client = KubeClient.fromKubeConfig(env.kubeConfig, { logger, timeoutMs: 120_000 });
await installCrds(env.kubeconfigPath, [CRDS.istioAuthorizationPolicy]);

const profileBody = (name: string) => ({
  apiVersion: 'kubeflow.org/v1',
  kind: 'Profile',
  metadata: { name },
  spec: {
    owner: { kind: 'User', name: `${name}@example.com` },
    resourceQuotaSpec: { hard: { 'requests.cpu': '8', pods: '50' } },
  },
});

/** The 8 objects, as a script that replaces the controller would write them. */
function upstreamObjects(
  profile: KubeObject,
): { ref: typeof resources.roleBindings; object: KubeObject }[] {
  const namespace = profile.metadata?.name ?? '';
  const owner = `${namespace}@example.com`;
  const rbac = 'rbac.authorization.k8s.io';
  const binding = (
    name: string,
    role: string,
    subject: Record<string, string>,
    annotations?: Record<string, string>,
  ) => ({
    ref: resources.roleBindings,
    object: {
      apiVersion: `${rbac}/v1`,
      kind: 'RoleBinding',
      metadata: { name, namespace, ...(annotations ? { annotations } : {}) },
      roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: role },
      subjects: [subject],
    } as KubeObject,
  });
  const account = (name: string) => ({
    ref: resources.serviceAccounts,
    object: {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name, namespace },
    } as KubeObject,
  });
  return [
    { ref: resources.namespaces, object: profileNamespace(profile) },
    account('default-editor'),
    account('default-viewer'),
    binding('default-editor', 'kubeflow-edit', {
      kind: 'ServiceAccount',
      name: 'default-editor',
      namespace,
    }),
    binding('default-viewer', 'kubeflow-view', {
      kind: 'ServiceAccount',
      name: 'default-viewer',
      namespace,
    }),
    binding(
      'namespaceAdmin',
      'kubeflow-admin',
      { apiGroup: rbac, kind: 'User', name: owner },
      { user: owner, role: 'admin' },
    ),
    {
      ref: resources.resourceQuotas,
      object: {
        apiVersion: 'v1',
        kind: 'ResourceQuota',
        metadata: { name: 'kf-resource-quota', namespace },
        spec: { hard: { 'requests.cpu': '8', pods: '50' } },
      } as KubeObject,
    },
    {
      ref: {
        group: 'security.istio.io',
        version: 'v1',
        resource: 'authorizationpolicies',
        kind: 'AuthorizationPolicy',
        namespaced: true,
      },
      object: {
        apiVersion: 'security.istio.io/v1',
        kind: 'AuthorizationPolicy',
        metadata: { name: 'ns-owner-access-istio', namespace },
        spec: { rules: [{ when: [{ key: 'request.headers[kubeflow-userid]', values: [owner] }] }] },
      } as KubeObject,
    },
  ];
}

async function rawLoop(): Promise<number> {
  const before = cpu(env.dir);
  const started = performance.now();
  await inParallel(indices(RAW), C, async (i) => {
    const profile = await client.create<KubeObject>(resources.profiles, profileBody(`raw-${i}`));
    for (const { ref, object } of upstreamObjects(profile)) {
      await client.apply(ref, object, { fieldManager: 'bench-raw', force: true });
    }
  });
  const ms = performance.now() - started;
  console.log(
    `raw loop      : ${RAW} Profiles in ${(ms / 1000).toFixed(1)} s = ${perSecond(RAW, ms)} Profiles/s (${cpuDelta(before, cpu(env.dir))})`,
  );
  // Gone before the controller starts, so that it never reconciles them.
  await inParallel(indices(RAW), C, (i) => client.delete(resources.profiles, `raw-${i}`));
  return RAW / (ms / 1000);
}

try {
  const rawRate = await rawLoop();
  const config = controllerConfig(`resyncSeconds: 86400\n${UPSTREAM}`);
  const first = await startController(env.kubeconfigPath, config);
  const metric = async (name: string, filter?: (labels: string) => boolean) =>
    metricSum(await first.metrics(), name, filter);
  const cpuBefore = cpu(env.dir);
  const started = performance.now();
  const creating = inParallel(indices(N), C, (i) =>
    client.create(resources.profiles, profileBody(`team-${i}`)),
  );
  let objectsAt = 0;
  let statusAt = 0;
  let peakRss = 0;
  while (!statusAt) {
    const created = await metric('kfx_profile_controller_object_writes_total', (l) =>
      l.includes('action="created"'),
    );
    const reconciled = await metric('kfx_profile_controller_profiles', (l) =>
      l.includes('state="reconciled"'),
    );
    peakRss = Math.max(peakRss, mib(first.pid, 'VmRSS'));
    const now = performance.now() - started;
    if (!objectsAt && created >= 8 * N) objectsAt = now;
    if (reconciled >= N) statusAt = now;
    else await sleep(250);
  }
  await creating;
  const converged = cpu(env.dir);
  const writes = await metric('kfx_kube_api_requests_total', writeMethods);
  const hwm = mib(first.pid, 'VmHWM');
  const rate = N / (objectsAt / 1000);
  console.log(
    `controller    : ${N} Profiles' objects in ${(objectsAt / 1000).toFixed(1)} s = ${rate.toFixed(1)} Profiles/s, ${(rate / rawRate).toFixed(2)}x the raw loop's rate (${cpuDelta(cpuBefore, converged)})`,
  );
  console.log(
    `                every status ${((statusAt - objectsAt) / 1000).toFixed(1)} s after the last object; ${(writes / N).toFixed(1)} writes per Profile; peak RSS ${hwm.toFixed(0)} MiB (limit ${limitMiB})`,
  );
  first.stop();

  const restartConfig = controllerConfig(`resyncSeconds: ${RESYNC_SECONDS}\n${UPSTREAM}`);
  const restarted = performance.now();
  const second = await startController(env.kubeconfigPath, restartConfig);
  const readyMs = performance.now() - restarted;
  const reconciles = async () =>
    metricSum(await second.metrics(), 'kfx_controller_reconcile_total', (l) =>
      l.includes('name="profiles"'),
    );
  // Its first reconcile of every Profile, then one resync of every Profile.
  while ((await reconciles()) < 2 * N) await sleep(1000);
  const text = await second.metrics();
  const steadyWrites = metricSum(text, 'kfx_kube_api_requests_total', writeMethods);
  const reads = metricSum(text, 'kfx_kube_api_requests_total', (l) => l.includes('method="GET"'));
  console.log(
    `restart       : ready in ${(readyMs / 1000).toFixed(1)} s; over ${2 * N} reconciles (the first and one resync) ${steadyWrites} writes (target 0) and ${reads} reads; peak RSS ${mib(second.pid, 'VmHWM').toFixed(0)} MiB (limit ${limitMiB})`,
  );
  second.stop();
  console.log(
    `\nresult: ${rate.toFixed(1)} Profiles/s (target >= 25), ${(rate / rawRate).toFixed(2)}x the raw loop; peak RSS ${Math.max(hwm, peakRss).toFixed(0)} MiB at ${N} Profiles; ${steadyWrites} writes at rest`,
  );
} finally {
  stopAll();
  client.close();
  await env.stop();
}
