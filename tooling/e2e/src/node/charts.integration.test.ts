// The images `npm run images` builds, running as Pods on a real node, installed by their Helm
// charts as an operator would: the apiserver calls kfx-webhook in its Pods through its Service
// (verifying the serving certificate for <service>.<namespace>.svc), and kfx-controller, from its
// Pods, converges a Profile. Both reach the apiserver as in any cluster, through the `kubernetes`
// Service (kube-proxy) with their service accounts; nothing in the values points them elsewhere.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  KubernetesObject,
  V1Deployment,
  V1Pod,
  V1ResourceQuota,
} from '@kubernetes/client-node';
import { buildImages, containersUnavailable } from '@kfx/images';
import {
  applyManifests,
  startControlPlane,
  startEgress,
  waitFor,
  type ControlPlane,
  type Egress,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSettledNamespace, getJson, listJson } from '../cluster.js';
import { CHARTS, helmOk, withValuesFile } from '../helm.js';
import { createServingSecret } from '../serving-secret.js';
import { onRealNode, realNodeAvailable, runPod } from './pods.js';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'kfx-e2e-node-charts-'));
const NAMESPACE = 'kfx-system';
const noImages = realNodeAvailable ? await containersUnavailable() : undefined;
const title = noImages
  ? `the charts' images on a real node (skipped: ${noImages})`
  : onRealNode("the charts' images on a real node");

let env: ControlPlane;
let egress: Egress;
let kubeconfig = '';
const images: Record<string, { repository: string; tag: string }> = {};

async function install(release: string, chart: string, values: object): Promise<void> {
  await withValuesFile(values, (file) =>
    helmOk([
      'install',
      release,
      chart,
      '--namespace',
      NAMESPACE,
      '--kubeconfig',
      kubeconfig,
      '--values',
      file,
      '--wait',
      '--timeout',
      '180s',
    ]),
  );
}

describe.skipIf(!realNodeAvailable || noImages !== undefined)(title, () => {
  beforeAll(async () => {
    env = await startControlPlane({ components: ['node'] });
    const node = env.node;
    if (!node) throw new Error('no node');
    kubeconfig = env.kubeconfigPath;
    const built = await buildImages(root);
    for (const app of built.apps) {
      await node.loadImage(app.image);
      const [repository = '', tag = ''] = app.image.split(/:(?=[^:]+$)/);
      images[app.app] = { repository, tag };
    }
    egress = await startEgress(node);
    await createSettledNamespace(kubeconfig, NAMESPACE);

    // tls.mode=secret: the operator's certificate for the Service's name, and its CA.
    const { caCert } = await createServingSecret(kubeconfig, {
      name: 'webhook-tls',
      namespace: NAMESPACE,
      service: 'kfx-webhook',
    });
    await install('kfx-webhook', CHARTS.webhook, {
      image: { ...images.webhook, pullPolicy: 'Never' },
      tls: { mode: 'secret', secretName: 'webhook-tls', caBundle: caCert },
      proxyInjector: { config: { httpProxy: egress.proxy.url, httpsProxy: egress.proxy.url } },
      // The apiserver calls the webhook from the host's address on the node's network.
      networkPolicy: { apiServerCidrs: [`${node.hostIp}/32`] },
    });
    await install('kfx-controller', CHARTS.controller, {
      image: { ...images.controller, pullPolicy: 'Never' },
      config: { reconcilers: { namespace: {}, quotas: {}, limitrange: {} } },
    });
  });

  afterAll(async () => {
    for (const release of ['kfx-controller', 'kfx-webhook']) {
      await helmOk([
        'uninstall',
        release,
        '--namespace',
        NAMESPACE,
        '--kubeconfig',
        kubeconfig,
      ]).catch(() => undefined);
    }
    await egress.stop();
    await env.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs both apps from their images as Pods on the node, ready', async () => {
    for (const app of ['webhook', 'controller']) {
      const deployment = await getJson<V1Deployment>(
        kubeconfig,
        ['deployment', `kfx-${app}`],
        NAMESPACE,
      );
      expect(deployment.status?.readyReplicas, app).toBe(2);
      const container = deployment.spec?.template.spec?.containers[0];
      expect(container?.image).toBe(`${images[app]?.repository}:${images[app]?.tag}`);
    }
  });

  it('has the apiserver call kfx-webhook through its Service, and the Pod uses what it injected', async () => {
    await createSettledNamespace(kubeconfig, 'team-a');
    const node = env.node;
    if (!node) throw new Error('no node');
    const image = await node.loadShellImage({ name: 'kfx.test/net:1' });
    const url = egress.url('from-chart');
    const pod: V1Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'fetcher', namespace: 'team-a' },
      spec: {
        restartPolicy: 'Never',
        containers: [{ name: 'app', image, imagePullPolicy: 'Never', command: ['fetch', url] }],
      },
    };
    const { pod: done, log } = await runPod(kubeconfig, pod);
    expect(done.metadata?.annotations?.['proxy-injector.kfx.dev/injected']).toBe('true');
    expect(done.spec?.containers[0]?.env).toContainEqual({
      name: 'HTTP_PROXY',
      value: egress.proxy.url,
    });
    expect(log).toBe('hello from the origin\n');
    expect(egress.proxy.requests()).toContainEqual(
      expect.objectContaining({ url, client: done.status?.podIP, result: 'TCP_MISS/200' }),
    );
  });

  it('has kfx-controller, in its Pods, converge a Profile', async () => {
    await applyManifests(kubeconfig, {
      apiVersion: 'kubeflow.org/v1',
      kind: 'Profile',
      metadata: { name: 'team-b', labels: { 'quotas.kfx.dev/requests.cpu': '4' } },
      spec: { owner: { kind: 'User', name: 'bob@example.com' } },
    } as KubernetesObject);
    const quota = await waitFor(
      async () => {
        const [found] = await listJson<V1ResourceQuota>(kubeconfig, ['resourcequotas'], 'team-b');
        const hard = found?.spec?.hard;
        return hard ? { done: true, value: hard } : { done: false, saw: 'no quota yet' };
      },
      { description: 'kfx-controller to make the quota of team-b', timeoutMs: 120_000 },
    );
    expect(quota['requests.cpu']).toBe('4');
    const namespace = await getJson(kubeconfig, ['namespace', 'team-b']);
    expect(namespace.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Profile',
      name: 'team-b',
    });
    const lease = await getJson<{ spec?: { holderIdentity?: string } }>(
      kubeconfig,
      ['lease', 'kfx-controller'],
      NAMESPACE,
    );
    expect(lease.spec?.holderIdentity).toMatch(/^kfx-controller-/);
  });
});
