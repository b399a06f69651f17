// A complete controller on @kfx/kube-runtime, as docs/kube-runtime/controller-example.md shows
// it: every namespace labelled `kfx.dev/tenant` gets a ConfigMap `proxy-env` holding the egress
// proxy settings. Informers watch namespaces and the ConfigMaps; a work queue reconciles one
// namespace at a time; apply skips the write when the ConfigMap is already right; only the leader
// reconciles; /readyz and /metrics are served, and SIGTERM stops it gracefully: the Runtime does
// those last three. Run by example.integration.test.ts against a real control plane.
import { once } from 'node:events';
import { hostname } from 'node:os';
import type { KubeConfig, V1Namespace } from '@kubernetes/client-node';
import { KubeClient, resources, type KubeObject } from '@kfx/kube-runtime/client';
import {
  applyObject,
  enqueueFrom,
  EventRecorder,
  LeaderElector,
  WorkQueue,
} from '@kfx/kube-runtime/controller';
import { createInformer, informersReady } from '@kfx/kube-runtime/informer';
import { Runtime } from '@kfx/kube-runtime/serving';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

export interface ControllerOptions {
  kubeConfig: KubeConfig;
  proxy: { httpsProxy: string; noProxy: string };
  /** Port of /healthz, /readyz, /metrics (0: any free port). */
  port: number;
  logger: Logger;
  resyncMs?: number;
}

const FIELD_MANAGER = 'kfx-tenant-proxy';
const MANAGED = { 'app.kubernetes.io/managed-by': FIELD_MANAGER };

/** The controller on a Runtime, not started: `runtime.run()` serves until SIGTERM. */
export function composeController(options: ControllerOptions) {
  const { logger } = options;
  const registry = new Registry();
  const client = KubeClient.fromKubeConfig(options.kubeConfig, { registry, logger });
  const namespaces = createInformer<V1Namespace>(client, resources.namespaces, {
    labelSelector: 'kfx.dev/tenant',
    resyncMs: options.resyncMs,
  });
  const configMaps = createInformer<ConfigMap>(client, resources.configMaps, {
    labelSelector: `app.kubernetes.io/managed-by=${FIELD_MANAGER}`,
    resyncMs: 0,
  });
  const events = new EventRecorder({ client, component: FIELD_MANAGER });

  const desired = (namespace: string): ConfigMap => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'proxy-env', namespace, labels: MANAGED },
    data: { HTTPS_PROXY: options.proxy.httpsProxy, NO_PROXY: options.proxy.noProxy },
  });

  const elector = new LeaderElector({
    client,
    namespace: 'kube-system',
    name: FIELD_MANAGER,
    identity: `${hostname()}-${process.pid}`,
  });
  const runtime = new Runtime({
    name: 'tenant-proxy-controller',
    logger,
    registry,
    ops: { port: options.port, host: '127.0.0.1' },
    leaderElection: elector,
  });
  // Stopped last, after everything that uses it.
  runtime.add({
    name: 'client',
    stop: () => {
      client.close();
    },
  });
  // Standbys keep their caches warm, so a new leader starts at once.
  runtime.add({
    name: 'caches',
    start: () => {
      namespaces.start();
      configMaps.start();
    },
    stop: async () => {
      await Promise.all([namespaces.stop(), configMaps.stop()]);
    },
    ready: () => informersReady([namespaces, configMaps]),
  });
  runtime.lead({
    name: 'reconcile',
    async lead(signal) {
      await Promise.all([namespaces.waitForSync(signal), configMaps.waitForSync(signal)]);
      // A queue per term: its first keys are every cached namespace (a full reconcile).
      const queue = new WorkQueue({ name: 'tenant-proxy', workers: 4, registry, logger });
      const unsubscribe = [
        enqueueFrom(namespaces, queue), // key: the namespace name
        enqueueFrom(configMaps, queue, (cm) => [cm.metadata?.namespace ?? '']),
      ];
      const working = queue.run(async (name) => {
        const namespace = namespaces.store.get(name);
        if (!namespace || namespace.status?.phase === 'Terminating') return;
        const result = await applyObject(client, desired(name), {
          fieldManager: FIELD_MANAGER,
          cache: configMaps.store,
          ref: resources.configMaps,
        });
        if (result.changed) {
          await events.record(namespace, {
            type: 'Normal',
            reason: 'ProxyConfigApplied',
            message: `ConfigMap ${name}/proxy-env holds the egress proxy settings`,
          });
        }
      });
      if (!signal.aborted) await once(signal, 'abort');
      for (const off of unsubscribe) off();
      await queue.shutdown();
      await working;
    },
  });
  return { runtime, client, elector };
}

/** Starts it in this process, for a test: `stop()` ends it as SIGTERM would. */
export async function startController(options: ControllerOptions) {
  const { runtime, client, elector } = composeController(options);
  await runtime.start();
  return { client, elector, opsUrl: runtime.opsUrl ?? '', stop: () => runtime.stop() };
}
