// The demo runs the real kfx-webhook and kfx-controller binaries (the apps' builds, beside this
// package in the repository) as child processes against the embedded control plane, with their logs
// in the control plane's folder: their configuration, and the webhook's registration.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { V1Pod } from '@kubernetes/client-node';
import { renderWebhookConfiguration } from '@kfx/admission-core';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { resources, type KubeClient } from '@kfx/kube-runtime/client';
import {
  PROXY_INJECTOR_NAME,
  PROXY_INJECTOR_PATH,
  proxyInjectorRegistration,
} from '@kfx/proxy-injector';
import { PVC_REWRITER_NAME, PVC_REWRITER_PATH, pvcRewriterRegistration } from '@kfx/pvc-rewriter';
import type { ControlPlane, ManagedProcess } from '@kfx/testenv';
import { stringify } from 'yaml';
import type { Testenv } from './testenv.js';

/** The demo webhook's MutatingWebhookConfiguration. */
export const DEMO_WEBHOOK_CONFIGURATION = 'kfx-demo';

/** apps/<app>/dist/main.js: the demo runs from a checkout, where `npm start` builds them. */
function entryPoint(app: string): string {
  const main = fileURLToPath(new URL(`../../${app}/dist/main.js`, import.meta.url));
  if (!existsSync(main)) {
    throw new Error(
      `${main} is missing: kfx demo runs from the kfx repository after \`npm start\` (or turbo run build)`,
    );
  }
  return main;
}

function startApp(
  testenv: Testenv,
  name: string,
  app: string,
  args: readonly string[],
  dir: string,
): ManagedProcess {
  return testenv.startProcess({
    name,
    command: process.execPath,
    args: [entryPoint(app), ...args],
    logFile: join(dir, `${name}.log`),
  });
}

export async function startWebhook(
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
  // The same object `kfx webhook manifests --url … --ca-file …` prints, under a name of the demo's
  // own: the README's `helm install kfx-webhook` makes a configuration named kfx-webhook.
  const configuration = renderWebhookConfiguration({
    kind: 'mutating',
    name: DEMO_WEBHOOK_CONFIGURATION,
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

export async function startController(
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
export async function waitForWebhook(testenv: Testenv, client: KubeClient): Promise<void> {
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
