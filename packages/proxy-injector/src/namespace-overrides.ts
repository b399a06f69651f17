// The watched cache of per-namespace overrides: the ConfigMaps with the configured name, in every
// namespace, parsed once per change. A changed ConfigMap applies to the next Pod, with no restart.
import type { KubeClient } from '@kfx/kube-runtime/client';
import type { Logger } from '@kfx/kube-runtime/serving';
import { NamedConfigMaps } from './named-config-maps.js';
import { parseNamespaceOverride, type NamespaceOverride } from './namespace-override.js';

export class NamespaceOverrides extends NamedConfigMaps<NamespaceOverride> {
  constructor(client: KubeClient, configMapName: string, logger: Logger) {
    super(client, configMapName, {
      logger,
      read: (configMap) => {
        const override = parseNamespaceOverride(configMap);
        for (const problem of override.problems) logger.warn({ problem }, 'proxy override ignored');
        return override;
      },
    });
  }
}
