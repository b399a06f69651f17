// For the doctor's integration tests: the real proxy-injector and pvc-rewriter webhooks, served
// in this process by admission-core on 127.0.0.1 and registered by URL as kfx-webhook's chart
// registers them (same webhook names, rules, exclusions and failurePolicy), narrowed to the
// test file's namespaces.
import { Buffer } from 'node:buffer';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAdmissionServer } from '@kfx/admission-core';
import { createCertificateAuthority } from '@kfx/dev-certs';
import type { KubeClient } from '@kfx/kube-runtime/client';
import { createProxyInjector, parseProxyInjectorConfig } from '@kfx/proxy-injector';
import { createPvcRewriter, parsePvcRewriterConfig } from '@kfx/pvc-rewriter';
import { kubectl, serveWebhook, type ServedWebhook, type SharedControlPlane } from '@kfx/testenv';
import { pino } from 'pino';
import { Registry } from 'prom-client';

export interface KfxWebhookOptions {
  /** The MutatingWebhookConfiguration's name. */
  name: string;
  proxyInjector?: Record<string, unknown> | undefined;
  pvcRewriter?: Record<string, unknown> | undefined;
  failurePolicy?: 'Ignore' | 'Fail' | undefined;
  /** The serving certificate's validity. Default 365 days. */
  validityDays?: number | undefined;
  /** For the proxy injector's NO_PROXY discovery; without it, none. */
  client?: KubeClient | undefined;
}

/** A Pod of the file's namespace, sent with dryRun=All: what admission made of it, as JSON text. */
export function dryRunPod(env: SharedControlPlane): Promise<string> {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { generateName: 'probe-', namespace: env.namespace },
    spec: { containers: [{ name: 'c', image: 'kfx.invalid/c:1' }] },
  };
  return kubectl(
    env.kubeConfig,
    ['create', '--dry-run=server', '-o', 'json', '-f', '-'],
    JSON.stringify(pod),
  );
}

export function serveKfxWebhook(
  env: SharedControlPlane,
  options: KfxWebhookOptions,
): Promise<ServedWebhook> {
  const logger = pino({ level: 'silent' });
  const excluded = {
    key: 'kubernetes.io/metadata.name',
    operator: 'NotIn',
    values: ['kube-system'],
  };
  const common = (path: string, url: string, caCert: string) => ({
    admissionReviewVersions: ['v1'],
    clientConfig: { url: `${url}${path}`, caBundle: Buffer.from(caCert).toString('base64') },
    failurePolicy: options.failurePolicy ?? 'Ignore',
    sideEffects: 'None',
    timeoutSeconds: 5,
    matchPolicy: 'Equivalent',
  });
  return serveWebhook({
    kubeconfig: env.kubeConfig,
    scope: env.scope,
    // The API server picks a configuration up asynchronously: wait until a dry-run Pod of the
    // file's namespace comes back injected.
    called: async () => {
      const pod = await dryRunPod(env);
      return pod.includes('HTTP_PROXY') ? true : 'a dry-run Pod without HTTP_PROXY';
    },
    certificates: (dir) => {
      const ca = createCertificateAuthority({ commonName: 'kfx doctor test CA' });
      const serving = ca.issue({
        commonName: 'kfx-webhook',
        ipAddresses: ['127.0.0.1'],
        validityDays: options.validityDays ?? 365,
      });
      const certFile = join(dir, 'tls.crt');
      const keyFile = join(dir, 'tls.key');
      writeFileSync(certFile, serving.cert);
      writeFileSync(keyFile, serving.key);
      return Promise.resolve({ certFile, keyFile, caCert: ca.cert });
    },
    async serve(tls) {
      const registry = new Registry();
      const server = createAdmissionServer({
        webhooks: [
          createProxyInjector(
            parseProxyInjectorConfig(
              options.proxyInjector ?? { httpProxy: 'http://proxy.test:3128' },
            ),
            {
              logger,
              registry,
              ...(options.client ? { client: options.client } : {}),
            },
          ),
          createPvcRewriter(parsePvcRewriterConfig(options.pvcRewriter ?? { rules: [] }), {
            logger,
            registry,
          }),
        ],
        tls: { certFile: tls.certFile, keyFile: tls.keyFile },
        host: '127.0.0.1',
        port: 0,
        metricsPort: false,
        registry,
        logger,
      });
      const { port } = await server.start();
      return { port, stop: () => server.close() };
    },
    configurations: ({ url, caCert }) => [
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: options.name },
        webhooks: [
          {
            name: 'proxy-injector.kfx.dev',
            ...common('/mutate/proxy-injector', url, caCert),
            rules: [
              {
                apiGroups: [''],
                apiVersions: ['v1'],
                operations: ['CREATE'],
                resources: ['pods'],
                scope: 'Namespaced',
              },
            ],
            reinvocationPolicy: 'IfNeeded',
            namespaceSelector: {
              matchExpressions: [
                excluded,
                { key: 'proxy-injector.kfx.dev/inject', operator: 'NotIn', values: ['false'] },
              ],
            },
          },
          {
            name: 'pvc-rewriter.kfx.dev',
            ...common('/mutate/pvc-rewriter', url, caCert),
            rules: [
              {
                apiGroups: [''],
                apiVersions: ['v1'],
                operations: ['CREATE'],
                resources: ['persistentvolumeclaims'],
                scope: 'Namespaced',
              },
            ],
            reinvocationPolicy: 'Never',
            namespaceSelector: { matchExpressions: [excluded] },
          },
        ],
      },
    ],
  });
}
