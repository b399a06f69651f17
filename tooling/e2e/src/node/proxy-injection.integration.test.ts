// The proxy-injector end to end, on a real node through a real proxy: kfx-webhook (the binary,
// configured by its chart, called by the real apiserver) injects the proxy settings, and real
// containers use them. A Pod created with no proxy settings reaches the origin through squid,
// whose log names the pod; a Pod whose own NO_PROXY covers the origin reaches it directly; an
// init container and a Job's pod behave the same; a tool that reads only the lower-case
// http_proxy (busybox wget, like curl) is covered too.
// It owns its control plane: it needs a real node.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import {
  applyHostService,
  applyManifests,
  startControlPlane,
  startEgress,
  type ControlPlane,
  type Egress,
  waitFor,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSettledNamespace, listJson } from '../cluster.js';
import { startWebhookFromChart, type WebhookUnderTest } from '../webhook-server.js';
import { finishedPod, onRealNode, realNodeAvailable, runPod } from './pods.js';

const dir = mkdtempSync(join(tmpdir(), 'kfx-e2e-node-proxy-'));
let env: ControlPlane;
let egress: Egress;
let webhook: WebhookUnderTest | undefined;
let image = '';
let kubeconfig = '';
const NS = 'team-a';

describe.skipIf(!realNodeAvailable)(onRealNode('proxy injection on a real node'), () => {
  beforeAll(async () => {
    env = await startControlPlane({ components: ['node'] });
    const node = env.node;
    if (!node) throw new Error('no node');
    kubeconfig = env.kubeconfigPath;
    egress = await startEgress(node, { direct: true });
    const proxy = egress.proxy.url;
    webhook = await startWebhookFromChart({
      values: { proxyInjector: { config: { httpProxy: proxy, httpsProxy: proxy } } },
      kubeconfigPath: kubeconfig,
      dir,
    });
    image = await node.loadShellImage({ name: 'kfx.test/net:1' });
    await createSettledNamespace(kubeconfig, NS);
    // origin.test, the name squid serves, is also the Service `origin` of namespace `test` (its
    // backend the origin on the host): pods whose NO_PROXY covers it go there directly.
    await createSettledNamespace(kubeconfig, 'test');
    await applyHostService(kubeconfig, {
      namespace: 'test',
      name: 'origin',
      ip: node.hostIp,
      ports: [{ port: egress.origin.port }],
    });
    await node.serviceRouted('test', 'origin');
  });

  afterAll(async () => {
    await webhook?.stop();
    await egress.stop();
    await env.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const url = (path: string) => egress.url(path);
  const pod = (name: string, spec: Partial<NonNullable<V1Pod['spec']>>): V1Pod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS },
    spec: { restartPolicy: 'Never', containers: [], ...spec },
  });
  const proxied = (path: string) => egress.proxy.requests().filter((r) => r.url === url(path));

  it('sends a Pod created without proxy settings through the proxy, upper- and lower-case readers alike', async () => {
    const { pod: done, log } = await runPod(
      kubeconfig,
      pod('plain', {
        containers: [
          {
            name: 'app',
            image,
            imagePullPolicy: 'Never',
            command: ['sh', '-c', `fetch ${url('plain')} && wget -q -O- ${url('wget')}`],
          },
        ],
      }),
    );
    expect(done.status?.phase).toBe('Succeeded');
    expect(log).toBe('hello from the origin\nhello from the origin\n');
    const env = done.spec?.containers[0]?.env?.map((e) => e.name);
    expect(env).toEqual(expect.arrayContaining(['HTTP_PROXY', 'http_proxy', 'NO_PROXY']));
    const ip = done.status?.podIP;
    expect(proxied('plain')).toEqual([
      expect.objectContaining({ client: ip, result: 'TCP_MISS/200' }),
    ]);
    expect(proxied('wget')).toEqual([
      expect.objectContaining({ client: ip, result: 'TCP_MISS/200' }),
    ]);
    expect(egress.origin.hits.filter((h) => h.from === ip)).toEqual([]);
  });

  it('lets a Pod whose own NO_PROXY covers the origin reach it directly: the proxy sees nothing', async () => {
    const { pod: done, log } = await runPod(
      kubeconfig,
      pod('direct', {
        containers: [
          {
            name: 'app',
            image,
            imagePullPolicy: 'Never',
            command: ['fetch', url('direct')],
            env: [{ name: 'NO_PROXY', value: 'origin.test' }],
          },
        ],
      }),
    );
    expect(done.status?.phase).toBe('Succeeded');
    expect(log).toBe('hello from the origin\n');
    // The workload's NO_PROXY was kept; the proxy variables were still added.
    const vars = done.spec?.containers[0]?.env ?? [];
    expect(vars.filter((e) => e.name === 'NO_PROXY')).toEqual([
      { name: 'NO_PROXY', value: 'origin.test' },
    ]);
    expect(vars.some((e) => e.name === 'HTTP_PROXY')).toBe(true);
    expect(proxied('direct')).toEqual([]);
    expect(egress.origin.hits).toContainEqual({ from: done.status?.podIP, path: '/direct' });
  });

  it('does the same for an init container', async () => {
    const { pod: done, log } = await runPod(
      kubeconfig,
      pod('init', {
        initContainers: [
          { name: 'fetch-data', image, imagePullPolicy: 'Never', command: ['fetch', url('init')] },
        ],
        containers: [{ name: 'app', image, imagePullPolicy: 'Never', command: ['true'] }],
      }),
      'fetch-data',
    );
    expect(done.status?.phase).toBe('Succeeded');
    expect(log).toBe('hello from the origin\n');
    expect(proxied('init')).toEqual([expect.objectContaining({ client: done.status?.podIP })]);
  });

  it('does the same for the pod of a Job', async () => {
    const job: V1Job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'fetcher', namespace: NS },
      spec: {
        backoffLimit: 0,
        template: {
          spec: {
            restartPolicy: 'Never',
            containers: [
              { name: 'app', image, imagePullPolicy: 'Never', command: ['fetch', url('job')] },
            ],
          },
        },
      },
    };
    await applyManifests(kubeconfig, job);
    const [created] = await waitForJobPod();
    const done = await finishedPod(kubeconfig, created ?? '', NS);
    expect(done.status?.phase).toBe('Succeeded');
    expect(proxied('job')).toEqual([expect.objectContaining({ client: done.status?.podIP })]);
  });

  const waitForJobPod = () =>
    waitFor(
      async () => {
        const pods = await listJson<V1Pod>(kubeconfig, ['pods', '-l', 'job-name=fetcher'], NS);
        const names = pods.map((p) => p.metadata?.name ?? '');
        return names.length > 0 ? { done: true, value: names } : { done: false, saw: 'no pod yet' };
      },
      { description: 'the Job to create its pod', timeoutMs: 60_000 },
    );
});
