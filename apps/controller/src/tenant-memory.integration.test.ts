// One tenant must not be able to take the shared controller down. The owner of one Profile fills
// her namespace with 200 ConfigMaps of 900 KiB, each labelled app.kubernetes.io/managed-by=kfx
// (anyone may write that label; the proxy-config reconciler makes ConfigMaps, so the controller
// watches them). The built kfx-controller, run with the heap flags its chart
// derives from its memory limit, stays under that limit while she does, keeps reconciling other
// Profiles, and starts again under it (the cold start lists all 180 MiB of them). With the
// secrets reconciler on, the controller watches Secrets too: another tenant's 150 Secrets of
// 1.2 MiB, labelled the same way, leave it under the chart's smallest limit (128Mi), where
// reading their data on every event (as the controller once did) took it past it.
// It owns its control plane: kfx-controller acts on every Profile of the cluster.
import { readFileSync } from 'node:fs';
import { inParallel, KubeClient, resources, type KubeObject } from '@kfx/kube-runtime/client';
import { freePort, startControlPlane, waitFor, type ControlPlane } from '@kfx/testenv';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chartMemory } from './testing/helm.js';
import {
  removeConfigs,
  spawnController,
  writeConfig,
  type ControllerProcess,
} from './testing/processes.js';

const TENANT = 'tenant-m';
const MALLORY = 'mallory@example.com';
const FLOOD = 200;
const KIB = 1024;

let env: ControlPlane | undefined;
let client: KubeClient;
const running: ControllerProcess[] = [];
let nodeOptions = '';
let limitMiB = 0;

beforeAll(async () => {
  // controller-manager aggregates the rules of ClusterRole admin, which the owner is bound to.
  env = await startControlPlane({ components: ['controller-manager'] });
  client = KubeClient.fromKubeConfig(env.kubeConfig, { logger: pino({ level: 'silent' }) });
  // What the chart gives the container by default: its memory limit and the heap flags for it.
  ({ limitMiB, nodeOptions } = await chartMemory());
  expect(nodeOptions).toMatch(/--max-old-space-size=\d+/);
  expect(limitMiB).toBeGreaterThan(0);
});

afterAll(async () => {
  for (const proc of running) proc.child.kill('SIGKILL');
  await Promise.all(running.map((proc) => proc.exited));
  client.close();
  await env?.stop();
  removeConfigs();
});

/** The peak resident memory of a process so far, in MiB (VmHWM). */
function peakMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1]);
  return kib / KIB;
}

async function startController(
  config: string,
  heapFlags = nodeOptions,
): Promise<ControllerProcess> {
  if (!env) throw new Error('no control plane');
  const port = await freePort();
  const proc = spawnController(
    ['--config', config, '--kubeconfig', env.kubeconfigPath, '--metrics-port', String(port)],
    { NODE_OPTIONS: heapFlags },
  );
  running.push(proc);
  await waitFor(
    async () => {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      return response?.status === 200
        ? { done: true, value: undefined }
        : { done: false, saw: `${response?.status ?? 'no answer'}\n${proc.output().slice(-2000)}` };
    },
    { description: 'kfx-controller to be ready', timeoutMs: 120_000 },
  );
  return proc;
}

async function createProfile(name: string, owner: string): Promise<void> {
  await client.create(resources.profiles, {
    apiVersion: 'kubeflow.org/v1',
    kind: 'Profile',
    metadata: { name },
    spec: { owner: { kind: 'User', name: owner } },
  });
}

/** Waits until the controller has made the Profile's quota: it is still reconciling. */
async function reconciled(name: string): Promise<void> {
  await waitFor(
    async () => {
      const quota = await client
        .get(resources.resourceQuotas, 'quotas', { namespace: name })
        .catch(() => undefined);
      return quota
        ? { done: true, value: undefined }
        : { done: false, saw: `no ResourceQuota quotas in ${name}` };
    },
    { description: `Profile ${name} reconciled`, timeoutMs: 120_000 },
  );
}

it('stays under its memory limit while a tenant floods its caches, and after a restart', async () => {
  if (!env) throw new Error('no control plane');
  const config = writeConfig(`reconcilers:
  namespace: {}
  rbac:
    bindings: [{ name: namespaceAdmin, clusterRole: admin, owner: true }]
  quotas: {}
  limitrange: {}
  proxy-config: { httpProxy: 'http://proxy.example.com:3128' }
`);
  const first = await startController(config);
  await createProfile(TENANT, MALLORY);
  await reconciled(TENANT);

  // Mallory, admin of her namespace through the binding the controller made, floods it.
  const mallory = KubeClient.fromKubeConfig(env.userKubeconfig(MALLORY).kubeConfig, {
    logger: pino({ level: 'silent' }),
  });
  const blob = 'x'.repeat(900 * KIB);
  const flood = (i: number) =>
    mallory.create(resources.configMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `flood-${i}`,
        namespace: TENANT,
        labels: { 'app.kubernetes.io/managed-by': 'kfx', 'kfx.dev/reconciler': 'proxy-config' },
      },
      data: { blob },
    });
  // Her rights arrive with the controller's namespaceAdmin binding.
  await waitFor(
    async () => {
      await flood(0);
      return { done: true, value: undefined };
    },
    { description: `${MALLORY} allowed to create ConfigMaps in ${TENANT}`, timeoutMs: 60_000 },
  );
  await inParallel([...Array(FLOOD).keys()].slice(1), 4, flood);
  mallory.close();
  // Another tenant's Profile is still served, after the controller has seen every ConfigMap.
  await createProfile('team-late', 'late@example.com');
  await reconciled('team-late');
  const whileFlooded = peakMiB(first.child.pid ?? 0);

  first.child.kill('SIGTERM');
  await first.exited;
  const second = await startController(config);
  await createProfile('team-after', 'after@example.com');
  await reconciled('team-after');
  const coldStart = peakMiB(second.child.pid ?? 0);

  expect(whileFlooded, `peak RSS while flooded (limit ${limitMiB} MiB)`).toBeLessThan(limitMiB);
  expect(coldStart, `peak RSS of the cold start (limit ${limitMiB} MiB)`).toBeLessThan(limitMiB);
  // The flood is still there: the controller neither took it over nor deleted it.
  const kept = await client.get<KubeObject & { data?: Record<string, string> }>(
    resources.configMaps,
    'flood-0',
    { namespace: TENANT },
  );
  expect(kept.metadata?.ownerReferences).toBeUndefined();
  expect(kept.data?.blob).toHaveLength(900 * KIB);
});

/** The chart's smallest memory limit, and the heap flags it derives from it. */
const smallest = () =>
  chartMemory({
    resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '128Mi' } },
  });

/**
 * Runs the controller under `heapFlags` while the owner of a new Profile `tenant` creates
 * `count` objects with `make` in her namespace; waits for `served` of another Profile after the
 * flood and after a restart. Returns the peak RSS of both runs, in MiB.
 */
async function floodNamespace(options: {
  config: string;
  heapFlags: string;
  tenant: string;
  owner: string;
  count: number;
  make: (client: KubeClient, i: number) => Promise<unknown>;
  served: (profile: string) => Promise<void>;
}): Promise<{ whileFlooded: number; coldStart: number }> {
  if (!env) throw new Error('no control plane');
  const { config, heapFlags, tenant, owner } = options;
  // An earlier test's controller gives up its Lease: this one leads.
  for (const proc of running) proc.child.kill('SIGTERM');
  await Promise.all(running.map((proc) => proc.exited));
  const first = await startController(config, heapFlags);
  await createProfile(tenant, owner);
  await options.served(tenant);
  // The owner, admin of her namespace through the binding the controller made, floods it.
  const tenantClient = KubeClient.fromKubeConfig(env.userKubeconfig(owner).kubeConfig, {
    logger: pino({ level: 'silent' }),
  });
  await waitFor(
    async () => {
      await options.make(tenantClient, 0);
      return { done: true, value: undefined };
    },
    { description: `${owner} allowed to write in ${tenant}`, timeoutMs: 60_000 },
  );
  await inParallel([...Array(options.count).keys()].slice(1), 4, (i) =>
    options.make(tenantClient, i),
  );
  tenantClient.close();
  await createProfile(`${tenant}-late`, `late-${owner}`);
  await options.served(`${tenant}-late`);
  const whileFlooded = peakMiB(first.child.pid ?? 0);
  first.child.kill('SIGTERM');
  await first.exited;
  const second = await startController(config, heapFlags);
  await createProfile(`${tenant}-after`, `after-${owner}`);
  await options.served(`${tenant}-after`);
  return { whileFlooded, coldStart: peakMiB(second.child.pid ?? 0) };
}

const labelledAs = (reconciler: string) => ({
  'app.kubernetes.io/managed-by': 'kfx',
  'kfx.dev/reconciler': reconciler,
});

it('reads none of a tenant’s Secrets with the secrets reconciler on, under the smallest limit', async () => {
  const small = await smallest();
  expect(small.limitMiB).toBe(128);
  // The Secret every Profile namespace gets a copy of.
  await client.create(resources.namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'kfx-copies' },
  });
  await client.create(resources.secrets, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'regcred', namespace: 'kfx-copies' },
    data: { token: Buffer.from('registry-token').toString('base64') },
  });
  const config = writeConfig(`reconcilers:
  namespace: {}
  rbac:
    bindings: [{ name: namespaceAdmin, clusterRole: admin, owner: true }]
  quotas: {}
  secrets: { sourceNamespace: kfx-copies, copy: [{ name: regcred }] }
`);
  const data = { blob: Buffer.alloc(900 * KIB, 7).toString('base64') };
  const peaks = await floodNamespace({
    config,
    heapFlags: small.nodeOptions,
    tenant: 'tenant-s',
    owner: 'sybil@example.com',
    count: 150,
    // Secrets of 1.2 MiB, labelled as kfx's copies.
    make: (sybil, i) =>
      sybil.create(resources.secrets, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: `flood-${i}`, namespace: 'tenant-s', labels: labelledAs('secrets') },
        data,
      }),
    // Reconciled, with its copy of regcred: the secrets reconciler is at work.
    served: async (name) => {
      await reconciled(name);
      await waitFor(
        async () => {
          const copy = await client
            .get(resources.secrets, 'regcred', { namespace: name })
            .catch(() => undefined);
          return copy
            ? { done: true, value: undefined }
            : { done: false, saw: `no copy of regcred in ${name}` };
        },
        { description: `regcred copied into ${name}`, timeoutMs: 120_000 },
      );
    },
  });
  expect.soft(peaks.whileFlooded, `peak RSS while flooded (limit 128 MiB)`).toBeLessThan(128);
  expect.soft(peaks.coldStart, `peak RSS of the cold start (limit 128 MiB)`).toBeLessThan(128);
  const kept = await client.get<KubeObject & { data?: Record<string, string> }>(
    resources.secrets,
    'flood-0',
    { namespace: 'tenant-s' },
  );
  expect(kept.metadata?.ownerReferences).toBeUndefined();
  expect(kept.data?.blob).toBe(data.blob);
});
