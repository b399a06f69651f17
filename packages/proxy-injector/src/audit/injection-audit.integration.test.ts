// The fail-open window, reproduced on a real apiserver: the proxy-injector registered with
// failurePolicy Ignore (as the chart renders it) but unreachable admits a Pod without the proxy
// settings; the audit finds exactly such Pods (in served namespaces, not opted out, never
// handled), counts them by namespace and puts a Warning Event on each while it leads.
// It owns its control plane: the audit counts the Pods of every namespace of the cluster.
import { KubeClient, resources, type KubeObject } from '@kfx/kube-runtime';
import {
  freePort,
  registerWebhook,
  startControlPlane,
  waitFor,
  type ControlPlane,
} from '@kfx/testenv';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyInjectorRules } from '../registration.js';
import { createInjectionAudit, type InjectionAudit } from './injection-audit.js';

let env: ControlPlane;
let client: KubeClient;
let audit: InjectionAudit;
const registry = new Registry();
const leading = new AbortController();

const namespace = (name: string, labels: Record<string, string> = {}) =>
  client.create(resources.namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels },
  });

const pod = (ns: string, name: string, annotations: Record<string, string> = {}) =>
  client.create(
    resources.pods,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: ns, annotations },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    },
    { namespace: ns },
  );

async function gauge(): Promise<Record<string, number>> {
  const metric = registry.getSingleMetric('kfx_proxy_injector_uninjected_pods');
  const values = (await metric?.get())?.values ?? [];
  return Object.fromEntries(
    values.filter((v) => v.value > 0).map((v) => [String(v.labels.namespace), v.value]),
  );
}

const eventually = <T>(check: () => Promise<T | undefined>, description: string) =>
  waitFor(
    async () => {
      const value = await check();
      return value === undefined ? { done: false, saw: 'not yet' } : { done: true, value };
    },
    { description, timeoutMs: 30_000 },
  );

beforeAll(async () => {
  env = await startControlPlane();
  client = KubeClient.fromKubeConfig(env.kubeConfig, {
    logger: pino({ level: 'silent' }),
    registry: new Registry(),
  });
  // The injector's registration, failurePolicy Ignore, pointing where nothing listens.
  await registerWebhook(env.kubeConfig, {
    name: 'proxy-injector',
    type: 'mutating',
    url: `https://127.0.0.1:${await freePort()}/mutate/proxy-injector`,
    caBundle: env.caCert,
    rules: proxyInjectorRules,
    failurePolicy: 'Ignore',
    timeoutSeconds: 2,
  });
  audit = createInjectionAudit({
    client,
    registry,
    excludeNamespaces: ['kube-system', 'kfx-system'],
  });
  await audit.start();
  void audit.lead(leading.signal);
  await Promise.all([
    namespace('team-a'),
    namespace('team-out', { 'proxy-injector.kfx.dev/inject': 'false' }),
    namespace('kfx-system'),
  ]);
});

afterAll(async () => {
  leading.abort();
  await audit.stop();
  client.close();
  await env.stop();
});

describe('the proxy-injection audit', () => {
  it('finds a Pod admitted while the webhook was unreachable, and nothing the injector handled or may skip', async () => {
    const missed: KubeObject = await pod('team-a', 'admitted-uninjected');
    // The apiserver admitted it unchanged: failurePolicy Ignore.
    expect(missed.metadata?.annotations?.['proxy-injector.kfx.dev/injected']).toBeUndefined();
    await pod('team-a', 'handled', { 'proxy-injector.kfx.dev/injected': 'true' });
    await pod('team-a', 'opted-out', { 'proxy-injector.kfx.dev/inject': 'false' });
    await pod('team-out', 'in-opted-out-namespace');
    await pod('kfx-system', 'webhook-itself');
    await pod('kube-system', 'system');
    await eventually(async () => ((await gauge())['team-a'] === 1 ? true : undefined), 'the gauge');
    expect(await gauge()).toEqual({ 'team-a': 1 });
    expect(audit.uninjected()).toEqual(['team-a/admitted-uninjected']);
    const event = await eventually(async () => {
      const list = await client.list<KubeObject & { reason?: string; message?: string }>(
        resources.events,
        {
          namespace: 'team-a',
          fieldSelector: 'involvedObject.name=admitted-uninjected',
        },
      );
      return list.items.find((e) => e.reason === 'ProxyNotInjected');
    }, 'the Warning Event');
    expect(event.message).toContain('admitted without the proxy settings');
  });

  it('follows a namespace opting back in, and a Pod going away', async () => {
    await client.patch(resources.namespaces, 'team-out', {
      metadata: { labels: { 'proxy-injector.kfx.dev/inject': null } },
    });
    await eventually(
      async () => ((await gauge())['team-out'] === 1 ? true : undefined),
      'team-out counted',
    );
    await client.delete(resources.pods, 'admitted-uninjected', {
      namespace: 'team-a',
      gracePeriodSeconds: 0,
    });
    await eventually(
      async () => ((await gauge())['team-a'] === undefined ? true : undefined),
      'team-a cleared',
    );
    expect(await gauge()).toEqual({ 'team-out': 1 });
  });
});
