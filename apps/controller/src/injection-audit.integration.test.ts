// kfx-controller with the proxy-injection audit on: Pods admitted without the proxy-injector (here:
// no webhook at all, as when it is down with failurePolicy Ignore) are counted on /metrics and
// get a Warning Event; the controller's own namespace and kube-system are the webhook's
// exclusions and are left out; /readyz waits for the audit's caches too.
// It owns its control plane: the audit counts the Pods of every namespace, and kfx-controller
// acts on every Profile of the cluster.
import { KubeClient, resources, type KubeObject } from '@kfx/kube-runtime/client';
import { startControlPlane, waitFor, type ControlPlane } from '@kfx/testenv';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFrom } from './config.js';
import { startController, type RunningController } from './run.js';

let env: ControlPlane;
let client: KubeClient;
let controller: RunningController | undefined;

const pod = (namespace: string, name: string) =>
  client.create(
    resources.pods,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    },
    { namespace },
  );

beforeAll(async () => {
  env = await startControlPlane();
  client = KubeClient.fromKubeConfig(env.kubeConfig, { logger: pino({ level: 'silent' }) });
  for (const name of ['kfx-system', 'team-a', 'site-tools']) {
    await client.create(resources.namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    });
  }
  controller = await startController({
    config: configFrom(
      { proxyInjectionAudit: { enabled: true, excludeNamespaces: ['site-tools'] } },
      '.',
      'test',
    ),
    kubeconfig: env.kubeconfigPath,
    metricsPort: 0,
    metricsHost: '127.0.0.1',
    leaderElect: false,
    namespace: 'kfx-system',
    logger: pino({ level: 'silent' }),
  });
});

afterAll(async () => {
  await controller?.stop();
  client.close();
  await env.stop();
});

describe('the proxy-injection audit in kfx-controller', () => {
  it('counts and flags Pods admitted without the injector, outside the webhook’s exclusions', async () => {
    const url = controller?.ops.url ?? '';
    await waitFor(
      async () =>
        (await fetch(`${url}/readyz`)).ok
          ? { done: true, value: undefined }
          : { done: false, saw: 'not ready' },
      { description: 'kfx-controller ready', timeoutMs: 60_000 },
    );
    await pod('team-a', 'uninjected');
    await pod('kfx-system', 'webhook');
    await pod('kube-system', 'system');
    await pod('site-tools', 'excluded');
    const metrics = await waitFor(
      async () => {
        const text = await (await fetch(`${url}/metrics`)).text();
        return text.includes('kfx_proxy_injector_uninjected_pods{namespace="team-a"} 1')
          ? { done: true, value: text }
          : { done: false, saw: 'no count for team-a yet' };
      },
      { description: 'the uninjected Pod counted', timeoutMs: 30_000 },
    );
    expect(metrics).not.toMatch(
      /kfx_proxy_injector_uninjected_pods\{namespace="(kfx-system|kube-system|site-tools)"\} [1-9]/,
    );
    const event = await waitFor(
      async () => {
        const list = await client.list<
          KubeObject & { reason?: string; source?: { component?: string } }
        >(resources.events, {
          namespace: 'team-a',
          fieldSelector: 'involvedObject.name=uninjected',
        });
        const found = list.items.find((e) => e.reason === 'ProxyNotInjected');
        return found ? { done: true, value: found } : { done: false, saw: 'no event yet' };
      },
      { description: 'the Warning Event', timeoutMs: 30_000 },
    );
    expect(event.source?.component).toBe('kfx-controller-proxy-injection-audit');
  });
});
