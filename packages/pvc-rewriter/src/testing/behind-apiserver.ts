// The rewriter as a cluster runs it, for the integration tests: served over HTTPS by
// admission-core, registered with a real kube-apiserver by URL with the configuration that
// renderWebhookConfiguration makes (failurePolicy Fail here, so a missed call is an error rather
// than an unchanged claim), and its metrics on the API client's registry, as kfx-webhook does.
// The apiserver is the package's shared control plane: the registration's namespaceSelector is
// narrowed to the file's namespaces, and stop() deletes it and the StorageClasses the file made
// (cluster-wide objects the next file's rewriter would otherwise see).
import { createAdmissionServer, renderWebhookConfiguration } from '@kfx/admission-core';
import { KubeClient, resources } from '@kfx/kube-runtime/client';
import {
  runKubectl,
  serveWebhook,
  useSharedControlPlane,
  waitFor,
  type KubectlRun,
  type SharedControlPlane,
  type SharedControlPlaneInfo,
} from '@kfx/testenv';
import { pino } from 'pino';
import type { PvcRewriterConfig } from '../config.js';
import { pvcRewriterRegistration } from '../registration.js';
import type { Claim } from '../rewrite.js';
import { createPvcRewriter, type PvcRewriterWebhook } from '../webhook.js';

export interface RewriterBehindApiserver {
  /** The file's share of the plane: `env.namespace` is its namespace. */
  env: SharedControlPlane;
  /** Admin client; its registry holds the admission and rewriter metrics. */
  client: KubeClient;
  rewriter: PvcRewriterWebhook;
  /** Whether the rewriter called itself ready before start() (it should not). */
  readyBeforeStart: boolean;
  /** The real kubectl as the admin, e.g. to see admission warnings on stderr. */
  kubectl(args: readonly string[], stdin?: string): Promise<KubectlRun>;
  /** The Prometheus text the metrics port serves. */
  metrics(): Promise<string>;
  stop(): Promise<void>;
}

export interface BehindApiserverOptions {
  /** `inject('kfxControlPlane')` */
  plane: SharedControlPlaneInfo | undefined;
  /** Names the file's namespace (`<label>-<random>`). */
  label: string;
  config: PvcRewriterConfig;
  /** StorageClasses to create before the rewriter starts; stop() deletes them. */
  storageClasses: readonly object[];
  /** Makes what else must exist before the rewriter starts (more namespaces, …). */
  setUp?(client: KubeClient, env: SharedControlPlane): Promise<void>;
  /**
   * A claim (in the file's namespace) the rewriter moves to `storageClassName`: dry-run until
   * the apiserver calls it.
   */
  probe: { claim: (namespace: string) => Claim; storageClassName: string };
}

export async function startBehindApiserver(
  options: BehindApiserverOptions,
): Promise<RewriterBehindApiserver> {
  const cleanups: (() => Promise<void> | void)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  try {
    const env = await useSharedControlPlane(options.plane, options.label);
    cleanups.push(() => env.release());
    const logger = pino({ level: 'warn' });
    const client = KubeClient.fromKubeConfig(env.kubeConfig, { logger });
    cleanups.push(() => {
      client.close();
    });
    for (const storageClass of options.storageClasses) {
      const created = await client.create(resources.storageClasses, storageClass);
      cleanups.push(async () => {
        await client.delete(resources.storageClasses, created.metadata?.name ?? '');
      });
    }
    await options.setUp?.(client, env);

    const rewriter = createPvcRewriter(options.config, { client, logger });
    const readyBeforeStart = rewriter.readiness().ok;
    await rewriter.start();
    cleanups.push(() => rewriter.stop());
    // Synced after the first list; ready once the watch that follows is established.
    await waitFor(
      () => {
        const { ok, reasons } = rewriter.readiness();
        return Promise.resolve(
          ok ? { done: true, value: null } : { done: false, saw: reasons.join('; ') },
        );
      },
      { description: 'the caches to be ready', timeoutMs: 10_000 },
    );

    let metricsPort = 0;
    const { storageClassName } = options.probe;
    const claim = options.probe.claim(env.namespace);
    const served = await serveWebhook({
      kubeconfig: env.kubeConfig,
      async serve(tls) {
        const server = createAdmissionServer({
          webhooks: [rewriter],
          tls,
          host: '127.0.0.1',
          port: 0,
          metricsHost: '127.0.0.1',
          metricsPort: 0,
          registry: client.registry,
          logger,
        });
        const ports = await server.start();
        metricsPort = ports.metricsPort ?? 0;
        return { port: ports.port, stop: () => server.close() };
      },
      configurations: ({ url, caCert }) => [
        renderWebhookConfiguration({
          kind: 'mutating',
          name: `kfx-pvc-rewriter-${env.namespace}`,
          namespace: 'kfx-system',
          url,
          caBundle: caCert,
          webhooks: [{ ...pvcRewriterRegistration(rewriter), failurePolicy: 'Fail' }],
        }),
      ],
      scope: env.scope,
      async called() {
        const probe = await client.create(resources.persistentVolumeClaims, claim, {
          dryRun: true,
        });
        const got = probe.spec?.storageClassName;
        return got === storageClassName || `storageClassName ${String(got)}`;
      },
    });
    cleanups.push(() => served.stop());

    return {
      env,
      client,
      rewriter,
      readyBeforeStart,
      kubectl: (args, stdin) => runKubectl(env.kubeconfigPath, args, stdin),
      async metrics() {
        const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
        return response.text();
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
