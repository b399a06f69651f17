// The documented controller (examples/tenant-proxy-controller.ts) on a real control plane: it
// creates what is missing, repairs drift and deletions, records Events, serves readiness and
// metrics, and in a steady state its resyncs reconcile without a single write. On the package's
// shared control plane: its two namespaces are named after the file's own.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort, useSharedControlPlane, waitFor, type SharedControlPlane } from '@kfx/testenv';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startController } from '../examples/tenant-proxy-controller.js';
import { KubeClient } from './client/client.js';
import { isNotFound } from './client/errors.js';
import { resources, type KubeObject } from './client/resources.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

const logger = pino({ level: 'silent' });
/** The process form of the example, as documented; it imports the built package. */
const RUN_EXAMPLE = fileURLToPath(
  new URL('../examples/run-tenant-proxy-controller.ts', import.meta.url),
);
let env: SharedControlPlane;
let admin: KubeClient;
let controller: Awaited<ReturnType<typeof startController>>;
let tenant: string;
let other: string;

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'example');
  tenant = `${env.namespace}-tenant`;
  other = `${env.namespace}-other`;
  admin = KubeClient.fromKubeConfig(env.kubeConfig, { logger });
  controller = await startController({
    kubeConfig: env.kubeConfig,
    proxy: { httpsProxy: 'http://proxy.example:3128', noProxy: '.svc,.cluster.local,10.0.0.0/8' },
    port: 0,
    logger,
    resyncMs: 300,
  });
});
afterAll(async () => {
  await controller.stop();
  for (const name of [tenant, other]) {
    await admin.delete(resources.namespaces, name).catch(() => undefined);
  }
  admin.close();
  await env.release();
});

const proxyEnv = (namespace: string) =>
  admin.get<ConfigMap>(resources.configMaps, 'proxy-env', { namespace }).catch((e: unknown) => {
    if (isNotFound(e)) return undefined;
    throw e;
  });

async function eventually<T>(description: string, check: () => Promise<T | undefined>): Promise<T> {
  return waitFor(
    async () => {
      const value = await check();
      return value === undefined ? { done: false, saw: 'not yet' } : { done: true, value };
    },
    { description, timeoutMs: 30_000 },
  );
}

const metric = async (name: string, labels: string) => {
  const text = await (await fetch(`${controller.opsUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return Number(line?.split(' ').at(-1) ?? 0);
};

describe('the example controller', () => {
  it('gives every tenant namespace its proxy ConfigMap and tells people about it', async () => {
    await eventually('readiness', async () =>
      (await fetch(`${controller.opsUrl}/readyz`)).ok ? true : undefined,
    );
    await admin.create(resources.namespaces, {
      metadata: { name: tenant, labels: { 'kfx.dev/tenant': 'yes' } },
    });
    await admin.create(resources.namespaces, { metadata: { name: other } });
    const cm = await eventually('the ConfigMap', () => proxyEnv(tenant));
    expect(cm.data).toEqual({
      HTTPS_PROXY: 'http://proxy.example:3128',
      NO_PROXY: '.svc,.cluster.local,10.0.0.0/8',
    });
    expect(await proxyEnv(other)).toBeUndefined();
    // The Event is written after the ConfigMap: wait for it rather than read it once.
    const reasons = await waitFor(
      async () => {
        const events = await admin.list<KubeObject & { reason?: string }>(resources.events, {
          namespace: 'default',
          fieldSelector: `involvedObject.name=${tenant}`,
        });
        const found = events.items.map((e) => e.reason);
        return found.includes('ProxyConfigApplied')
          ? { done: true, value: found }
          : { done: false, saw: found.join(', ') || 'no events' };
      },
      { description: 'the ProxyConfigApplied event', timeoutMs: 30_000 },
    );
    expect(reasons).toContain('ProxyConfigApplied');
    expect(controller.elector.isLeader()).toBe(true);
  });

  it('repairs an edited or deleted ConfigMap', async () => {
    await admin.patch(
      resources.configMaps,
      'proxy-env',
      { data: { HTTPS_PROXY: 'http://elsewhere:8080' } },
      { namespace: tenant },
    );
    await eventually('the repair', async () =>
      (await proxyEnv(tenant))?.data?.HTTPS_PROXY === 'http://proxy.example:3128'
        ? true
        : undefined,
    );
    await admin.delete(resources.configMaps, 'proxy-env', { namespace: tenant });
    await eventually('the re-creation', () => proxyEnv(tenant));
  });

  it('makes no write while resyncs reconcile a steady cluster', async () => {
    const before = await proxyEnv(tenant);
    // Let the informers see the last write, then count over several resyncs.
    await eventually('a quiet moment', async () =>
      (await metric('kfx_controller_queue_depth', 'tenant-proxy')) === 0 ? true : undefined,
    );
    const patches = await metric('kfx_kube_api_requests_total', 'method="PATCH"');
    const reconciles = await metric('kfx_controller_reconcile_total', 'result="success"');
    await eventually('five more reconciles', async () =>
      (await metric('kfx_controller_reconcile_total', 'result="success"')) >= reconciles + 5
        ? true
        : undefined,
    );
    expect(await metric('kfx_kube_api_requests_total', 'method="PATCH"')).toBe(patches);
    expect((await proxyEnv(tenant))?.metadata?.resourceVersion).toBe(
      before?.metadata?.resourceVersion,
    );
  });

  it('runs as a process on its Runtime: ready, then exits 0 on SIGTERM (a standby here)', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [RUN_EXAMPLE], {
      env: { ...process.env, KUBECONFIG: env.kubeconfigPath, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    for (const stream of [child.stdout, child.stderr])
      stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await waitFor(
        async () => {
          const answer = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
          return answer?.status === 200
            ? { done: true, value: undefined }
            : { done: false, saw: `${answer?.status ?? 'no answer'}\n${output.slice(-2000)}` };
        },
        { description: 'the example process to be ready', timeoutMs: 30_000 },
      );
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(output).toContain('tenant-proxy-controller: SIGTERM, stopping (again to force)');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
