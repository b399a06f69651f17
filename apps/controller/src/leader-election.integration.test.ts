// Hot standbys: several kfx-controllers against one control plane; only the Lease holder writes.
// A leader that dies without a word (SIGKILL) is replaced once its Lease expires; a leader that
// stops gracefully hands over at once. Profiles created at each stage are reconciled.
// It owns its control plane: Lease timings of its own, and kfx-controllers that act on every
// Profile of the cluster.
import { KubeClient, resources } from '@kfx/kube-runtime/client';
import { profileNamespace, startControlPlane, waitFor, type ControlPlane } from '@kfx/testenv';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configFrom } from './config.js';
import { startController, type RunningController } from './run.js';
import {
  spawnController,
  waitForHolder,
  removeConfigs,
  writeConfig,
  type ControllerProcess,
} from './testing/processes.js';

const CONFIG = `reconcilers:
  quotas: {}
leaderElection:
  leaseDurationSeconds: 4
  renewDeadlineSeconds: 3
  retryPeriodSeconds: 1
`;

let env: ControlPlane | undefined;
let client: KubeClient;
let binary: ControllerProcess | undefined;
const inProcess: RunningController[] = [];

beforeAll(async () => {
  env = await startControlPlane();
  client = KubeClient.fromKubeConfig(env.kubeConfig, { logger: pino({ level: 'silent' }) });
  await client.create(resources.namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'kfx-system' },
  });
});

afterAll(async () => {
  binary?.child.kill('SIGKILL');
  for (const running of inProcess) await running.stop();
  client.close();
  await env?.stop();
  removeConfigs();
});

async function standby(identity: string): Promise<RunningController> {
  if (!env) throw new Error('no control plane');
  const running = await startController({
    config: configFrom(parse(CONFIG), '.', 'test'),
    kubeconfig: env.kubeconfigPath,
    metricsPort: 0,
    metricsHost: '127.0.0.1',
    leaderElect: true,
    namespace: 'kfx-system',
    identity,
    logger: pino({ level: 'silent' }),
  });
  inProcess.push(running);
  await waitFor(
    () => {
      const ready = running.controller.ready();
      return Promise.resolve(
        ready.ok
          ? { done: true as const, value: true }
          : { done: false as const, saw: ready.reasons.join('; ') },
      );
    },
    { description: `${identity} caches synced` },
  );
  return running;
}

async function profileReconciled(name: string): Promise<void> {
  const profile = await client.create(resources.profiles, {
    apiVersion: 'kubeflow.org/v1',
    kind: 'Profile',
    metadata: { name },
    spec: { owner: { kind: 'User', name: `${name}@example.com` } },
  } as never);
  await client.create(resources.namespaces, profileNamespace(profile));
  await waitFor(
    async () => {
      const quota = await client
        .get(resources.resourceQuotas, 'quotas', { namespace: name })
        .catch(() => undefined);
      return quota ? { done: true, value: quota } : { done: false, saw: 'no quota yet' };
    },
    { description: `the quota of ${name}` },
  );
}

/** Requests that write, made by one in-process controller's client. */
async function writes(running: RunningController): Promise<number> {
  const metric = running.client.registry.getSingleMetric('kfx_kube_api_requests_total');
  if (!metric) return 0;
  const { values } = await metric.get();
  return values
    .filter((v) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(String(v.labels.method)))
    .reduce((sum, v) => sum + v.value, 0);
}

it('lets only the leader write, and a standby take over when the leader dies or stops', async () => {
  if (!env) throw new Error('no control plane');
  // 1. The binary leads; an in-process standby watches but never writes.
  binary = spawnController(
    [
      '--config',
      writeConfig(CONFIG),
      '--kubeconfig',
      env.kubeconfigPath,
      '--metrics-port',
      '0',
      '--namespace',
      'kfx-system',
    ],
    { POD_NAME: 'first' },
  );
  await waitForHolder(
    client,
    'kfx-system',
    (h) => h?.startsWith('first_') === true,
    'the binary to lead',
  );
  const second = await standby('second');
  await profileReconciled('tenant-1');
  expect(second.controller.leading).toBe(false);
  expect(await writes(second)).toBe(0);

  // 2. The leader dies without releasing the Lease: the standby takes over once it expires.
  binary.child.kill('SIGKILL');
  await waitForHolder(client, 'kfx-system', (h) => h === 'second', 'second to take over');
  await profileReconciled('tenant-2');
  expect(await writes(second)).toBeGreaterThan(0);

  // 3. A new standby stays quiet while second leads; second stops gracefully and hands over.
  const third = await standby('third');
  await profileReconciled('tenant-3');
  expect(await writes(third)).toBe(0);
  await second.stop();
  await waitForHolder(client, 'kfx-system', (h) => h === 'third', 'third to take over');
  await profileReconciled('tenant-4');
  expect(third.controller.leading).toBe(true);
});
