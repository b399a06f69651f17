// The API server restarts while the controller is busy: watches break, writes fail. The
// controller must reconnect on its own and lose no update, neither one made before the
// restart nor one made while its watches were still down.
// It owns its control plane: it restarts the API server.
import { resources, type KubeClient } from '@kfx/kube-runtime/client';
import { startControlPlane, waitFor, type ControlPlane } from '@kfx/testenv';
import type { V1ResourceQuota } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  counterTotal,
  createProfile,
  read,
  runController,
  testClient,
  type Running,
} from '../testing/harness.js';

let env: ControlPlane | undefined;
let running: Running | undefined;
let client: KubeClient;

beforeAll(async () => {
  env = await startControlPlane();
  client = testClient(env);
  running = await runController(env, { quotas: {}, limitrange: {} });
});

afterAll(async () => {
  await running?.stop();
  client.close();
  await env?.stop();
});

it('recovers from an API server restart mid-run with no lost update', async () => {
  if (!env || !running) throw new Error('not started');
  const names = Array.from({ length: 20 }, (_, i) => `restart-${i}`);
  const registry = running.client.registry;
  const restartsBefore = await counterTotal(registry, 'kfx_informer_watch_restarts_total');
  await Promise.all(names.map((name) => createProfile(client, name)));
  // Restart while the controller is still working through the new Profiles.
  await env.restartApiServer();
  // Changes made at once, before the controller's watches have come back.
  await Promise.all(
    names.slice(0, 10).map((name, i) =>
      client.patch(resources.profiles, name, {
        metadata: { labels: { 'quotas.kfx.dev/requests.cpu': String(i + 1) } },
      }),
    ),
  );
  const controller = running.controller;
  const converged = await waitFor(
    async () => {
      const wrong: string[] = [];
      for (const [i, name] of names.entries()) {
        const quota = await read<V1ResourceQuota>(client, 'resourceQuotas', 'quotas', name);
        const want = i < 10 ? String(i + 1) : '70';
        const have = quota?.spec?.hard?.['requests.cpu'];
        if (have !== want) wrong.push(`${name}: want ${want}, have ${have ?? 'no quota'}`);
      }
      return wrong.length === 0
        ? { done: true, value: names.length }
        : { done: false, saw: wrong.join('; ') };
    },
    { description: 'every Profile to have its quota', timeoutMs: 90_000, intervalMs: 500 },
  );
  expect(converged).toBe(20);
  // The watches did break and come back (the test is not passing by missing the restart).
  expect(await counterTotal(registry, 'kfx_informer_watch_restarts_total')).toBeGreaterThan(
    restartsBefore,
  );
  await waitFor(
    () => {
      const ready = controller.ready();
      return Promise.resolve(
        ready.ok
          ? { done: true as const, value: true }
          : { done: false as const, saw: ready.reasons.join('; ') },
      );
    },
    { description: 'the controller to be ready again', timeoutMs: 60_000 },
  );
});
