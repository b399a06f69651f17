// Real Kubeflow traffic through a real proxy, on a real node. kfx-webhook (the binary, configured
// by its chart, its NO_PROXY discovered and defaulted, called by the real apiserver) injects the
// settings, and real containers use them:
// - a KFP-like call to `ml-pipeline.kubeflow` goes straight to the cluster service (the Service
//   `ml-pipeline` in namespace `kubeflow`, found through the cluster DNS and reached through
//   kube-proxy; its backend is an origin on the host) because the injected NO_PROXY covers
//   `.kubeflow`, while an external name goes through squid; a pod whose own NO_PROXY lacks
//   `.kubeflow` sends the same call to squid;
// - behind a TLS-inspecting proxy, a Go client trusts the proxy's certificates through the
//   injected SSL_CERT_FILE (the proxy CA bundle from a ConfigMap, mounted read-only), and a pod
//   that names its own SSL_CERT_FILE does not.
// It owns its control plane: it needs a real node.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { createCertificateAuthority } from '@kfx/dev-certs';
import {
  applyHostService,
  applyManifests,
  startControlPlane,
  startEgress,
  type ControlPlane,
  type Egress,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSettledNamespace } from '../cluster.js';
import { startWebhookFromChart, type WebhookUnderTest } from '../webhook-server.js';
import { startInspectingProxy, type InspectingProxy } from './inspecting-proxy.js';
import { onRealNode, realNodeAvailable, runPod } from './pods.js';

const dir = mkdtempSync(join(tmpdir(), 'kfx-e2e-node-kubeflow-'));
let env: ControlPlane;
let egress: Egress;
let inspecting: InspectingProxy | undefined;
let webhook: WebhookUnderTest | undefined;
let image = '';
let kubeconfig = '';
const NS = 'kubeflow-user-example-com';
const BUNDLE = '/etc/kfx/proxy-ca/ca-bundle.crt';

describe.skipIf(!realNodeAvailable)(onRealNode('Kubeflow traffic on a real node'), () => {
  beforeAll(async () => {
    env = await startControlPlane({ components: ['node'] });
    const node = env.node;
    if (!node) throw new Error('no node');
    kubeconfig = env.kubeconfigPath;
    egress = await startEgress(node, { direct: true });
    const proxyCa = createCertificateAuthority({ commonName: 'corporate inspecting proxy' });
    inspecting = await startInspectingProxy({
      address: node.hostIp,
      subnet: node.subnet,
      ca: proxyCa,
    });
    await createSettledNamespace(kubeconfig, 'kubeflow');
    await applyHostService(kubeconfig, {
      namespace: 'kubeflow',
      name: 'ml-pipeline',
      ip: node.hostIp,
      ports: [{ port: egress.origin.port }],
    });
    await node.serviceRouted('kubeflow', 'ml-pipeline');
    // The bundle holds the proxy's CA and (standing in for the public roots) another CA.
    const publicRoot = createCertificateAuthority({ commonName: 'a public root' });
    await createSettledNamespace(kubeconfig, NS);
    const bundle = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'proxy-ca', namespace: NS },
      data: { 'ca-bundle.crt': `${publicRoot.cert}${proxyCa.cert}` },
    };
    await applyManifests(kubeconfig, bundle);
    webhook = await startWebhookFromChart({
      values: {
        proxyInjector: {
          config: {
            httpProxy: egress.proxy.url,
            httpsProxy: inspecting.url,
            caBundle: { configMap: 'proxy-ca', key: 'ca-bundle.crt' },
          },
        },
      },
      kubeconfigPath: kubeconfig,
      dir,
    });
    image = await node.loadShellImage({ name: 'kfx.test/net:1' });
  });

  afterAll(async () => {
    await webhook?.stop();
    await inspecting?.close();
    await egress.stop();
    await env.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const port = () => egress.origin.port;
  const pod = (name: string, command: string, env: { name: string; value: string }[] = []) =>
    ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: NS },
      spec: {
        restartPolicy: 'Never',
        containers: [
          { name: 'step', image, imagePullPolicy: 'Never', command: ['sh', '-c', command], env },
        ],
      },
    }) satisfies V1Pod;
  const viaSquid = (host: string) =>
    egress.proxy.requests().filter((r) => r.url.startsWith(`http://${host}:`));

  it('sends ml-pipeline.kubeflow direct and an external name through squid', async () => {
    const kfp = `http://ml-pipeline.kubeflow:${port()}/apis/v2beta1/healthz`;
    const { pod: done, log } = await runPod(
      kubeconfig,
      pod('kfp-step', `fetch ${kfp} && fetch ${egress.url('external')}`),
    );
    expect(done.status?.phase, log).toBe('Succeeded');
    const ip = done.status?.podIP;
    const noProxy = done.spec?.containers[0]?.env?.find((e) => e.name === 'NO_PROXY')?.value;
    expect(noProxy?.split(',')).toContain('.kubeflow');
    // The KFP call reached the "service" from the pod itself; squid never saw it.
    expect(egress.origin.hits).toContainEqual({ from: ip, path: '/apis/v2beta1/healthz' });
    expect(viaSquid('ml-pipeline.kubeflow')).toEqual([]);
    // The external name went through squid (the origin saw squid, not the pod).
    expect(viaSquid(egress.hostName)).toEqual([
      expect.objectContaining({ client: ip, url: egress.url('external'), result: 'TCP_MISS/200' }),
    ]);
    expect(egress.origin.hits.filter((h) => h.from === ip && h.path === '/external')).toEqual([]);
  });

  it('sends the same call to squid when the pod brings a NO_PROXY without .kubeflow', async () => {
    const kfp = `http://ml-pipeline.kubeflow:${port()}/apis/v2beta1/runs`;
    const { pod: done } = await runPod(
      kubeconfig,
      pod('own-no-proxy', `fetch ${kfp}`, [{ name: 'NO_PROXY', value: '.svc' }]),
    );
    // squid knows no ml-pipeline.kubeflow: the call fails there, and its log names the pod.
    expect(done.status?.phase).toBe('Failed');
    expect(viaSquid('ml-pipeline.kubeflow')).toEqual([
      expect.objectContaining({ client: done.status?.podIP, result: 'TCP_DENIED/403' }),
    ]);
    expect(egress.origin.hits.some((h) => h.path === '/apis/v2beta1/runs')).toBe(false);
  });

  it('trusts a TLS-inspecting proxy through the injected CA bundle (SSL_CERT_FILE, read by Go)', async () => {
    const url = `https://${egress.hostName}:${port()}/secure`;
    const { pod: done, log } = await runPod(
      kubeconfig,
      pod('tls-step', `cat ${BUNDLE} | grep -c 'BEGIN CERTIFICATE' && fetch ${url}`),
    );
    expect(done.status?.phase, log).toBe('Succeeded');
    expect(log).toBe('2\nhello through the inspecting proxy\n');
    const step = done.spec?.containers[0];
    expect(step?.env).toContainEqual({ name: 'SSL_CERT_FILE', value: BUNDLE });
    expect(step?.volumeMounts).toContainEqual({
      name: 'kfx-proxy-ca',
      mountPath: '/etc/kfx/proxy-ca',
      readOnly: true,
    });
    expect(inspecting?.requests).toContainEqual({
      client: done.status?.podIP,
      target: `${egress.hostName}:${port()}`,
      path: '/secure',
    });
  });

  it("does not trust it in a pod that names its own SSL_CERT_FILE (the workload's value wins)", async () => {
    const url = `https://${egress.hostName}:${port()}/refused`;
    const { pod: done, log } = await runPod(
      kubeconfig,
      pod('own-trust', `fetch ${url} 2>&1; exit 1`, [
        { name: 'SSL_CERT_FILE', value: '/etc/no-such-bundle.pem' },
      ]),
    );
    expect(done.status?.phase).toBe('Failed');
    expect(log).toContain('certificate signed by unknown authority');
    const record = inspecting?.requests.find((r) => r.client === done.status?.podIP);
    // The tunnel was opened, but the client refused the proxy's certificate: no request inside.
    expect(record).toEqual({ client: done.status?.podIP, target: `${egress.hostName}:${port()}` });
  });
});
