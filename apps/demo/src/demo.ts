// The local demonstration that `kfx demo` (and so `npm start`) runs. An embedded control plane (etcd,
// kube-apiserver, controller-manager, scheduler) with a real node (containerd + kubelet) where the
// machine allows one, kwok's simulated node where it does not; the real kfx-webhook and
// kfx-controller binaries against it, then a Profile, a Pod, two claims and a UAT run, each with
// what kfx did. On a real node a container also fetches through a real proxy, and the UAT suite
// really runs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { renderWebhookConfiguration } from '@kfx/admission-core';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { KubeClient, resources } from '@kfx/kube-runtime';
import {
  PROXY_INJECTOR_NAME,
  PROXY_INJECTOR_PATH,
  proxyInjectorRegistration,
} from '@kfx/proxy-injector';
import { PVC_REWRITER_NAME, PVC_REWRITER_PATH, pvcRewriterRegistration } from '@kfx/pvc-rewriter';
import type { ControlPlane, Egress, ManagedProcess } from '@kfx/testenv';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { startApp } from './apps.js';
import { showRealFetch, showRealUat, startEgress } from './real-node.js';
import { showClaims, showPod, showProfile, showUat } from './scenario.js';
import { loadTestenv, type Testenv } from './testenv.js';

/** The steps, on a real node (`real`) or on kwok. */
function demoSteps(real: boolean): string[] {
  return [
    real
      ? 'start a local control plane (etcd, kube-apiserver, controller-manager, scheduler) and a real node (containerd + kubelet), with squid as the egress proxy'
      : 'start a local control plane (etcd, kube-apiserver, controller-manager, scheduler, kwok)',
    'start kfx-webhook and kfx-controller against it',
    'create a Profile with quota labels and show the per-profile objects',
    'create a Pod and show the injected proxy variables',
    ...(real
      ? ['run a container with no proxy settings that fetches from outside: through the proxy']
      : []),
    'create ReadWriteMany and ReadWriteOnce claims and show the StorageClasses they got',
    real
      ? 'run a real UAT suite as a Job and show its result'
      : 'run a UAT Job and show its result',
  ];
}

/** Where the demo's proxy points when nothing listens there (kwok runs no container). */
const DEMO_PROXY = 'http://proxy.demo.example:3128';

function clock(): (line: string) => void {
  const start = performance.now();
  return (line) => {
    const s = ((performance.now() - start) / 1000).toFixed(1).padStart(5);
    console.log(`[${s}s] ${line}`);
  };
}

async function startWebhook(
  testenv: Testenv,
  env: ControlPlane,
  proxy: string,
  log: (l: string) => void,
): Promise<ManagedProcess> {
  const ca = createCertificateAuthority({ commonName: 'kfx demo CA' });
  const serving = ca.issue({ commonName: 'kfx-webhook', ipAddresses: ['127.0.0.1'] });
  const certFile = join(env.dir, 'webhook.crt');
  const keyFile = join(env.dir, 'webhook.key');
  writeFileSync(certFile, serving.cert);
  writeFileSync(keyFile, serving.key, { mode: 0o600 });
  const [port, metricsPort] = await Promise.all([testenv.freePort(), testenv.freePort()]);
  const config = join(env.dir, 'kfx-webhook.yaml');
  writeFileSync(
    config,
    stringify({
      port,
      metricsPort,
      tls: { certFile, keyFile },
      proxyInjector: { httpProxy: proxy, httpsProxy: proxy, noProxy: ['.corp.example'] },
      pvcRewriter: {
        rules: [
          {
            accessModes: ['ReadWriteMany'],
            fromStorageClassNames: ['<unset>', '<default>'],
            storageClassName: 'nfs-client',
          },
        ],
      },
    }),
  );
  const webhook = startApp(
    testenv,
    'kfx-webhook',
    'webhook',
    ['--config', config, '--kubeconfig', env.kubeconfigPath],
    env.dir,
  );
  await testenv.waitUntilHealthy(webhook, `https://127.0.0.1:${port}/readyz`, { ca: ca.cert });
  // The same object `kfx webhook manifests --url … --ca-file …` prints.
  const configuration = renderWebhookConfiguration({
    kind: 'mutating',
    name: 'kfx-webhook',
    namespace: 'kfx-system',
    url: `https://127.0.0.1:${port}`,
    caBundle: ca.cert,
    webhooks: [
      proxyInjectorRegistration({
        name: PROXY_INJECTOR_NAME,
        path: PROXY_INJECTOR_PATH,
        type: 'mutating',
        failureMode: 'admit',
      }),
      pvcRewriterRegistration({
        name: PVC_REWRITER_NAME,
        path: PVC_REWRITER_PATH,
        type: 'mutating',
        failureMode: 'admit',
      }),
    ],
  });
  await testenv.applyManifests(env.kubeconfigPath, configuration as never);
  log(`kfx-webhook serving on https://127.0.0.1:${port} (log: ${webhook.logFile})`);
  return webhook;
}

async function startController(
  testenv: Testenv,
  env: ControlPlane,
  proxy: string,
  log: (l: string) => void,
): Promise<ManagedProcess> {
  const metricsPort = await testenv.freePort();
  const config = join(env.dir, 'kfx-controller.yaml');
  writeFileSync(
    config,
    stringify({
      reconcilers: {
        namespace: {},
        quotas: {},
        limitrange: {},
        rbac: {
          bindings: [{ name: 'namespaceAdmin', clusterRole: 'kubeflow-admin', owner: true }],
        },
        'network-policies': {},
        'proxy-config': {
          httpProxy: proxy,
          httpsProxy: proxy,
          noProxy: ['.corp.example'],
        },
      },
      resyncSeconds: 60,
    }),
  );
  const controller = startApp(
    testenv,
    'kfx-controller',
    'controller',
    [
      '--config',
      config,
      '--kubeconfig',
      env.kubeconfigPath,
      '--metrics-port',
      String(metricsPort),
      '--no-leader-elect',
    ],
    env.dir,
  );
  await testenv.waitUntilHealthy(controller, `http://127.0.0.1:${metricsPort}/readyz`);
  log(
    `kfx-controller reconciling Profiles (metrics: http://127.0.0.1:${metricsPort}/metrics, log: ${controller.logFile})`,
  );
  return controller;
}

/** The apiserver takes a new webhook configuration up asynchronously: probe with a dry run. */
async function waitForWebhook(testenv: Testenv, client: KubeClient): Promise<void> {
  await testenv.waitFor(
    async () => {
      const pod = await client.create<V1Pod>(
        resources.pods,
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'probe', namespace: 'default' },
          spec: { containers: [{ name: 'c', image: 'busybox' }] },
        },
        { namespace: 'default', dryRun: true },
      );
      const injected = pod.spec?.containers[0]?.env?.some((e) => e.name === 'HTTPS_PROXY') === true;
      return injected
        ? { done: true, value: undefined }
        : { done: false, saw: 'a Pod without the proxy variables' };
    },
    { description: 'the API server to call kfx-webhook', timeoutMs: 30_000, intervalMs: 250 },
  );
}

export interface DemoOptions {
  /** Leave everything running until SIGINT or SIGTERM, and print the kubeconfig to explore. */
  keep?: boolean;
}

/** Runs the demo, printing each step to stdout; sets `process.exitCode` to 1 if the UAT run fails. */
export async function runDemo(options: DemoOptions = {}): Promise<void> {
  const log = clock();
  const testenv = await loadTestenv();
  const support = testenv.realNodeSupport();
  console.log('kfx demo: what it shows, step by step');
  demoSteps(support.available).forEach((s, i) => {
    console.log(`  ${i + 1}. ${s}`);
  });
  console.log(
    support.available
      ? '\nPods run on a real node: containerd and a kubelet on this machine, nothing pulled.\n'
      : `\nPods run on kwok: simulated, no container runs (no real node here: ${support.reason ?? 'unknown'}).\n`,
  );
  const env = await testenv.startControlPlane({
    components: support.available ? ['node'] : ['controller-manager', 'scheduler', 'kwok'],
    progress: (line) => {
      log(line);
    },
  });
  const node = env.node;
  let egress: Egress | undefined;
  const apps: ManagedProcess[] = [];
  const client = KubeClient.fromKubeConfig(env.kubeConfig, {
    userAgent: 'kfx-demo',
    logger: pino({ level: 'silent' }),
  });
  try {
    log(`✓ control plane ready at ${env.server}`);
    if (node) {
      log(`✓ real node ${node.name} ready at ${node.ip} (pods on ${node.subnet})`);
      egress = await startEgress(testenv, node);
      log(`✓ squid forwarding the node's pods at ${egress.proxy.url}`);
    }
    const proxy = egress?.proxy.url ?? DEMO_PROXY;
    await testenv.applyManifests(env.kubeconfigPath, [
      {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: {
          name: 'standard',
          annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
        },
        provisioner: 'csi.vsphere.vmware.com',
      },
      {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name: 'nfs-client' },
        provisioner: 'nfs.csi.k8s.io',
      },
    ] as never);
    apps.push(await startWebhook(testenv, env, proxy, log));
    await waitForWebhook(testenv, client);
    apps.push(await startController(testenv, env, proxy, log));

    const real = node && egress ? { node, egress } : undefined;
    const sections: [string, () => Promise<string>][] = [
      ['Per-profile policy (kfx-controller)', () => showProfile(testenv, client)],
      ['Proxy variables (kfx-webhook, proxy-injector)', () => showPod(testenv, client)],
    ];
    if (real) {
      sections.push([
        'A real container using them (real node, squid)',
        () => showRealFetch(testenv, client, real.node, real.egress),
      ]);
    }
    sections.push(['Storage classes (kfx-webhook, pvc-rewriter)', () => showClaims(client)]);
    for (const [title, show] of sections) {
      log(title);
      console.log(`${await show()}\n`);
    }
    log('User-acceptance tests (kfx uat run)');
    const print = (line: string) => {
      console.log(line);
    };
    const uat = real
      ? await showRealUat(client, env, real.node, real.egress, print)
      : await showUat(testenv, client, env, print);
    console.log(`${uat.text}\n`);
    if (!options.keep)
      console.log('  (the artifacts go with the control plane at the end; --keep keeps both)\n');
    log(`✓ demo finished${uat.result.exitCode === 0 ? '' : ' (the UAT run did not pass)'}`);
    if (uat.result.exitCode !== 0) process.exitCode = 1;

    if (options.keep) {
      console.log(
        `\nEverything keeps running. Explore with kubectl:\n  export KUBECONFIG=${env.kubeconfigPath}\n  kubectl get profiles,ns\n  kubectl -n team-demo get resourcequota,limitrange,networkpolicy,rolebinding,configmap\nCtrl-C stops it.`,
      );
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
    }
  } finally {
    client.close();
    for (const app of apps.reverse()) await app.stop();
    await egress?.stop();
    await env.stop();
  }
}
