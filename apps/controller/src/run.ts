// Composes kfx-controller: a client from the kubeconfig (API traffic never goes through an
// egress proxy), the profile controller's caches on every replica, the work queue only on the
// leader, and the health/metrics server. `stop()` releases the Lease first, so a standby takes
// over at once instead of waiting for the Lease to expire.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import {
  defaultNamespace,
  KubeClient,
  LeaderElector,
  loadKubeConfig,
  startOpsServer,
  type Check,
  type OpsServer,
} from '@kfx/kube-runtime';
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

export interface RunningController {
  controller: ProfileController;
  client: KubeClient;
  ops: OpsServer;
  elector: LeaderElector | undefined;
  identity: string;
  /** Resolves when the controller has stopped (after stop(), or when it failed). */
  done: Promise<void>;
  stop(): Promise<void>;
}

export async function startController(options: RunOptions): Promise<RunningController> {
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
  const ops = await startOpsServer({
    port: options.metricsPort,
    host: options.metricsHost,
    registry: client.registry,
    readiness: () => allReady([controller.ready(), ...(audit ? [audit.ready()] : [])]),
    logger,
  });
  logger.info(
    {
      config: config.source,
      reconcilers: config.reconcilers.map((r) => r.name),
      server: client.server,
      identity,
      metrics: ops.url,
    },
    'starting',
  );
  const stopping = new AbortController();
  let elector: LeaderElector | undefined;
  // Only the leader writes: the profile objects and the audit's Events.
  const lead = async (signal: AbortSignal) => {
    await Promise.all([controller.lead(signal), audit?.lead(signal)]);
  };
  const work = (async () => {
    await Promise.all([controller.start(stopping.signal), audit?.start(stopping.signal)]);
    if (!options.leaderElect) {
      await lead(stopping.signal);
      return;
    }
    elector = new LeaderElector({
      client,
      namespace,
      name: config.leaderElection.leaseName,
      identity,
      leaseDurationSeconds: config.leaderElection.leaseDurationSeconds,
      renewDeadlineSeconds: config.leaderElection.renewDeadlineSeconds,
      retryPeriodSeconds: config.leaderElection.retryPeriodSeconds,
      logger,
    });
    await elector.run({ onStartedLeading: lead }, stopping.signal);
  })();
  const done = work.finally(async () => {
    await Promise.all([controller.stop(), audit?.stop()]);
    await ops.close();
    client.close();
  });
  return {
    controller,
    client,
    ops,
    get elector() {
      return elector;
    },
    identity,
    done,
    async stop() {
      stopping.abort(new Error('kfx-controller is stopping'));
      await done.catch(() => undefined);
    },
  };
}

/** Ready when every part is; the reasons of all that are not. */
function allReady(checks: readonly Check[]): Check {
  return { ok: checks.every((c) => c.ok), reasons: checks.flatMap((c) => c.reasons) };
}
