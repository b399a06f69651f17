// Composes kfx-controller on kube-runtime's Runtime: a client from the kubeconfig (API traffic
// never goes through an egress proxy), the profile controller's caches (and the injection
// audit's) on every replica, their reconciles and Events only on the leader, and /healthz,
// /readyz, /metrics. Stopping releases the Lease first, so a standby takes over at once.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { defaultNamespace, KubeClient, loadKubeConfig } from '@kfx/kube-runtime/client';
import { LeaderElector } from '@kfx/kube-runtime/controller';
import { Runtime } from '@kfx/kube-runtime/serving';
import { createProfileController, type ProfileController } from '@kfx/profile-reconcilers';
import { createInjectionAudit } from '@kfx/proxy-injector';
import { pino, type Logger } from 'pino';
import type { ControllerConfig } from './config.js';

export interface RunOptions {
  config: ControllerConfig;
  kubeconfig?: string | undefined;
  context?: string | undefined;
  /** Port of /healthz, /readyz and /metrics; 0 picks a free one. */
  metricsPort: number;
  /** Bind address of that server. Default `0.0.0.0`. */
  metricsHost?: string | undefined;
  leaderElect: boolean;
  /**
   * The controller's own namespace: where the Lease lives, and one no Profile may use. Default:
   * POD_NAMESPACE, else the kubeconfig's namespace.
   */
  namespace?: string | undefined;
  /** Unique per replica. Default: POD_NAME or the host name, plus a random suffix. */
  identity?: string | undefined;
  logger?: Logger | undefined;
}

export interface ComposedController {
  runtime: Runtime;
  controller: ProfileController;
  client: KubeClient;
  elector: LeaderElector | undefined;
  identity: string;
}

export interface RunningController extends Omit<ComposedController, 'runtime'> {
  ops: { port: number; url: string };
  /** Resolves when the controller has stopped (after stop()); rejects when it failed. */
  done: Promise<void>;
  stop(): Promise<void>;
}

/** The controller's runtime, not started: `runtime.run()` serves until SIGTERM. */
export function composeController(options: RunOptions): ComposedController {
  const { config } = options;
  const logger = options.logger ?? pino({ name: 'kfx-controller', level: config.logLevel });
  const kc = loadKubeConfig({ kubeconfig: options.kubeconfig, context: options.context });
  const client = KubeClient.fromKubeConfig(kc, { logger, userAgent: 'kfx-controller' });
  const identity =
    options.identity ?? `${process.env.POD_NAME ?? hostname()}_${randomUUID().slice(0, 8)}`;
  const namespace = options.namespace ?? process.env.POD_NAMESPACE ?? defaultNamespace(kc);
  const controller = createProfileController({
    client,
    logger,
    config: {
      reconcilers: config.reconcilers,
      workers: config.workers,
      resyncSeconds: config.resyncSeconds,
      fieldManager: config.fieldManager,
      // No Profile may take the controller's own namespace.
      protectedNamespaces: [...config.protectedNamespaces, namespace],
      profileSelector: config.profileSelector,
      maxProfiles: config.maxProfiles,
      replacesUpstream: config.replacesUpstream,
    },
  });
  const audit = config.proxyInjectionAudit.enabled
    ? createInjectionAudit({
        client,
        logger,
        component: `${config.fieldManager}-proxy-injection-audit`,
        excludeNamespaces: [
          'kube-system',
          namespace,
          ...config.proxyInjectionAudit.excludeNamespaces,
        ],
        excludeContainers: config.proxyInjectionAudit.excludeContainers,
        configMapReaders: config.proxyInjectionAudit.configMapReaders,
      })
    : undefined;
  const { leaseName, ...durations } = config.leaderElection;
  const elector = options.leaderElect
    ? new LeaderElector({ client, namespace, name: leaseName, identity, logger, ...durations })
    : undefined;
  const runtime = new Runtime({
    name: 'kfx-controller',
    logger,
    registry: client.registry,
    ops: { port: options.metricsPort, host: options.metricsHost, setting: '--metrics-port' },
    leaderElection: elector,
  });
  runtime.add({
    name: 'api-client',
    start: () => {
      logger.info(
        {
          config: config.source,
          reconcilers: config.reconcilers.map((r) => r.name),
          server: client.server,
          identity,
          metrics: runtime.opsUrl,
        },
        'starting',
      );
    },
    stop: () => {
      client.close();
    },
  });
  // Caches on every replica; only the leader writes: the profile objects and the audit's Events.
  runtime.add({
    name: 'profiles',
    start: (signal) => controller.start(signal),
    stop: () => controller.stop(),
    ready: () => controller.ready(),
  });
  runtime.lead({ name: 'profiles', lead: (signal) => controller.lead(signal) });
  if (audit) {
    runtime.add({
      name: 'proxy-injection-audit',
      start: (signal) => audit.start(signal),
      stop: () => audit.stop(),
      ready: () => audit.ready(),
    });
    runtime.lead({ name: 'proxy-injection-audit', lead: (signal) => audit.lead(signal) });
  }
  return { runtime, controller, client, elector, identity };
}

/** Composes and starts the controller, for tests that drive it in process. */
export async function startController(options: RunOptions): Promise<RunningController> {
  const { runtime, ...parts } = composeController(options);
  await runtime.start();
  return {
    ...parts,
    ops: { port: runtime.opsPort ?? 0, url: runtime.opsUrl ?? '' },
    done: runtime.done,
    stop: () => runtime.stop(),
  };
}
