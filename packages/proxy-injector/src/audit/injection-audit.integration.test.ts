// The fail-open window, reproduced on a real apiserver: the proxy-injector registered with
// failurePolicy Ignore (as the chart renders it) but unreachable admits a Pod without the proxy
// settings; the audit finds exactly such Pods (in served namespaces, not opted out, never
// handled), counts them by namespace and puts a Warning Event on each while it leads.
// It owns its control plane: the audit counts the Pods of every namespace of the cluster.
import { KubeClient, resources, type KubeObject } from '@kfx/kube-runtime/client';
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

type Container = Record<string, unknown>;

const pod = (
  ns: string,
  name: string,
  annotations: Record<string, string> = {},
  containers: Container[] = [{ name: 'c', image: 'busybox' }],
) =>
  client.create(
    resources.pods,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: ns, annotations },
      spec: { containers },
    },
    { namespace: ns },
  );

/** A container as the injector leaves it: both cases of the three variables appended. */
const injected = (name: string): Container => ({
  name,
  image: 'busybox',
  env: ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'].map(
    (variable) => ({
      name: variable,
      value: variable.endsWith('_PROXY') ? 'http://proxy:3128' : '.svc',
    }),
  ),
});
const FORGED = { 'proxy-injector.kfx.dev/injected': 'true' };

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
    await pod('team-a', 'handled', FORGED, [injected('c')]);
    // The mark alone, written by the Pod's creator: no proxy settings in it.
    await pod('team-a', 'forged-mark', FORGED);
    await pod('team-a', 'opted-out', { 'proxy-injector.kfx.dev/inject': 'false' });
    await pod('team-out', 'in-opted-out-namespace');
    await pod('kfx-system', 'webhook-itself');
    await pod('kube-system', 'system');
    await eventually(async () => ((await gauge())['team-a'] === 2 ? true : undefined), 'the gauge');
    expect(await gauge()).toEqual({ 'team-a': 2 });
    expect(audit.uninjected().sort()).toEqual(['team-a/admitted-uninjected', 'team-a/forged-mark']);
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

  it('judges a Pod by the proxy variables its containers carry, wherever they come from', async () => {
    await namespace('team-b');
    await client.create(resources.configMaps, {
      metadata: { name: 'proxy-env', namespace: 'team-b' },
      data: { HTTPS_PROXY: 'http://proxy:3128' },
    } as KubeObject);
    await client.create(resources.configMaps, {
      metadata: { name: 'app-env', namespace: 'team-b' },
      data: { LOG_LEVEL: 'debug' },
    } as KubeObject);
    const reading = (configMaps: string, prefix?: string): Container => ({
      name: 'c',
      image: 'busybox',
      envFrom: [{ configMapRef: { name: configMaps }, ...(prefix ? { prefix } : {}) }],
    });
    // The workload's own setting (the injector leaves it alone), and a mesh sidecar it excludes.
    await pod('team-b', 'own-setting', {}, [
      { name: 'c', image: 'busybox', env: [{ name: 'https_proxy', value: 'http://own:8080' }] },
    ]);
    await pod('team-b', 'with-sidecar', {}, [injected('c'), { name: 'istio-proxy', image: 'x' }]);
    await pod('team-b', 'from-config-map', {}, [reading('proxy-env')]);
    // Forged marks over specs that carry no proxy variable: another ConfigMap, a prefixed key,
    // an init container without them.
    await pod('team-b', 'other-config-map', FORGED, [reading('app-env')]);
    await pod('team-b', 'prefixed', FORGED, [reading('proxy-env', 'APP_')]);
    await client.create(
      resources.pods,
      {
        metadata: { name: 'bare-init', namespace: 'team-b', annotations: FORGED },
        spec: { initContainers: [{ name: 'init', image: 'busybox' }], containers: [injected('c')] },
      } as KubeObject,
      { namespace: 'team-b' },
    );
    // The three Pods that read ConfigMaps were decided.
    await eventually(async () => {
      const metric = registry.getSingleMetric('kfx_controller_reconcile_total');
      const values = (await metric?.get())?.values ?? [];
      const done = values.find(
        (v) =>
          v.labels.name === 'proxy-injection-audit-configmaps' && v.labels.result === 'success',
      );
      return (done?.value ?? 0) >= 3 ? true : undefined;
    }, 'the ConfigMaps read');
    await eventually(async () => ((await gauge())['team-b'] === 3 ? true : undefined), 'the gauge');
    expect(
      audit
        .uninjected()
        .filter((pod) => pod.startsWith('team-b/'))
        .sort(),
    ).toEqual(['team-b/bare-init', 'team-b/other-config-map', 'team-b/prefixed']);
  });

  it('follows a namespace opting back in, and a Pod going away', async () => {
    await client.patch(resources.namespaces, 'team-out', {
      metadata: { labels: { 'proxy-injector.kfx.dev/inject': null } },
    });
    await eventually(
      async () => ((await gauge())['team-out'] === 1 ? true : undefined),
      'team-out counted',
    );
    for (const name of ['admitted-uninjected', 'forged-mark']) {
      await client.delete(resources.pods, name, { namespace: 'team-a', gracePeriodSeconds: 0 });
    }
    await eventually(
      async () => ((await gauge())['team-a'] === undefined ? true : undefined),
      'team-a cleared',
    );
    expect(await gauge()).toEqual({ 'team-out': 1, 'team-b': 3 });
  });
});
