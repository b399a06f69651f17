// Where kfx-controller is: its Deployments (by the chart's name label) and the configuration
// file each mounts (the ConfigMap of its `config` volume), for the checks that depend on how it
// is set up (its Lease, maxProfiles, whether it replaces the upstream profile controller).
import { parse } from 'yaml';
import type { Cluster } from './cluster.js';
import type { Deployment } from './objects.js';

/** What the doctor reads of kfx-controller's configuration file. */
export interface KfxControllerConfig {
  maxProfiles?: number;
  /** Reconciler name → its settings, or false. */
  reconcilers?: Record<string, unknown>;
  replacesUpstream?: boolean;
  leaderElection?: { leaseName?: string };
}

/** kfx-controller's Deployments, by their chart's name label. */
export function kfxControllers(deployments: readonly Deployment[]): Deployment[] {
  return deployments.filter(
    (deployment) => deployment.metadata?.labels?.['app.kubernetes.io/name'] === 'kfx-controller',
  );
}

/** The configuration file a kfx-controller Deployment mounts; empty when it cannot be read. */
export function controllerConfig(
  cluster: Cluster,
  deployment: Deployment,
): Promise<KfxControllerConfig> {
  const namespace = deployment.metadata?.namespace ?? '';
  return cluster.memo(
    `controller-config:${namespace}/${deployment.metadata?.name ?? ''}`,
    async () => {
      for (const volume of deployment.spec?.template?.spec?.volumes ?? []) {
        if (volume.name !== 'config' || !volume.configMap?.name) continue;
        const configMap = await cluster.configMap(namespace, volume.configMap.name);
        for (const text of Object.values(configMap?.data ?? {})) {
          try {
            const document = parse(text) as unknown;
            if (document && typeof document === 'object') return document;
          } catch {
            // Not the configuration file.
          }
        }
      }
      return {};
    },
  );
}
