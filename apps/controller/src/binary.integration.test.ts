// The built kfx-controller binary against a real control plane, as a Pod would run it: it
// becomes leader, reconciles, serves /readyz and /metrics, and on SIGTERM releases its Lease
// and exits 0.
// It owns its control plane: kfx-controller acts on every Profile of the cluster (no selector
// keeps it to one file's).
import { KubeClient, resources, type KubeObject } from '@kfx/kube-runtime/client';
import {
  freePort,
  profileNamespace,
  startControlPlane,
  waitFor,
  type ControlPlane,
} from '@kfx/testenv';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  leaseHolder,
  spawnController,
  waitForHolder,
  removeConfigs,
  writeConfig,
  type ControllerProcess,
} from './testing/processes.js';

type Quota = KubeObject & { spec?: { hard?: Record<string, string> } };

let env: ControlPlane | undefined;
let client: KubeClient;
let controller: ControllerProcess | undefined;

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
  controller?.child.kill('SIGKILL');
  client.close();
  await env?.stop();
  removeConfigs();
});

it('reconciles as the leader, reports health and metrics, and stops cleanly on SIGTERM', async () => {
  if (!env) throw new Error('no control plane');
  const port = await freePort();
  const config = writeConfig(`reconcilers:
  quotas:
    labelPrefix: quotas.statcan.gc.ca
  limitrange: {}
`);
  const proc = spawnController(
    [
      '--config',
      config,
      '--kubeconfig',
      env.kubeconfigPath,
      '--metrics-port',
      String(port),
      '--namespace',
      'kfx-system',
    ],
    { POD_NAME: 'kfx-controller-0' },
  );
  controller = proc;
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      const response = await fetch(`${url}/readyz`).catch(() => undefined);
      return response?.status === 200
        ? { done: true, value: true }
        : { done: false, saw: `${response?.status ?? 'no answer'}\n${proc.output().slice(-2000)}` };
    },
    { description: '/readyz to answer 200' },
  );
  const holder = await waitForHolder(
    client,
    'kfx-system',
    (h) => h?.startsWith('kfx-controller-0_') === true,
    'the binary to lead',
  );
  expect(holder).toMatch(/^kfx-controller-0_/);

  const profile = await client.create(resources.profiles, {
    apiVersion: 'kubeflow.org/v1',
    kind: 'Profile',
    metadata: { name: 'team-x', labels: { 'quotas.statcan.gc.ca/requests.cpu': '6' } },
    spec: { owner: { kind: 'User', name: 'x@example.com' } },
  } as never);
  // As the upstream Kubeflow profile controller makes it: owned by the Profile.
  await client.create(resources.namespaces, profileNamespace(profile));
  const quota = await waitFor(
    async () => {
      const q = await client
        .get<Quota>(resources.resourceQuotas, 'quotas', { namespace: 'team-x' })
        .catch(() => undefined);
      return q ? { done: true, value: q } : { done: false, saw: proc.output().slice(-2000) };
    },
    { description: 'the quota of team-x' },
  );
  expect(quota.spec?.hard?.['requests.cpu']).toBe('6');

  const metrics = await waitFor(
    async () => {
      const text = await (await fetch(`${url}/metrics`)).text();
      return text.includes('kfx_profile_controller_profiles{state="reconciled"} 1')
        ? { done: true, value: text }
        : { done: false, saw: text.slice(0, 500) };
    },
    { description: 'the profiles gauge' },
  );
  expect(metrics).toContain('kfx_leader_election_leader{lease="kfx-system/kfx-controller"} 1');

  proc.child.kill('SIGTERM');
  expect(await proc.exited).toBe(0);
  expect(await leaseHolder(client, 'kfx-system')).toBe('');
});

it('exits 1 naming the reconciler and the kind when a template makes a kind the server does not serve', async () => {
  if (!env) throw new Error('no control plane');
  const config = writeConfig(`reconcilers:
  templates:
    inline:
      - name: authz.yaml
        content: |
          apiVersion: security.istio.io/v1
          kind: AuthorizationPolicy
          metadata:
            name: owner
`);
  const proc = spawnController([
    '--config',
    config,
    '--kubeconfig',
    env.kubeconfigPath,
    '--metrics-port',
    '0',
    '--no-leader-elect',
  ]);
  expect(await proc.exited).toBe(1);
  expect(proc.output()).toContain(
    'reconciler templates creates AuthorizationPolicy (security.istio.io/v1), which the API server does not serve',
  );
});
