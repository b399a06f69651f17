// What the proxy injector reads from the API under a configuration, and the ClusterRole rules
// that reading needs: one answer that both builds the caches (webhook.ts) and grants them (the
// kfx-webhook chart is tested against it), so the two cannot drift. Reads only, never Secrets.
import type { V1PolicyRule } from '@kubernetes/client-node';
import type { ProxyInjectorConfig } from './config.js';

/** The API-backed features a parsed configuration turns on. */
export interface ApiReads {
  /** The per-namespace override ConfigMaps (list, watch in every namespace). */
  namespaceConfigMap: boolean;
  /** The CA bundle ConfigMaps (list, watch in every namespace). */
  caBundle: boolean;
  /** The ConfigMaps a Pod names in envFrom (get, at admission). */
  readEnvFrom: boolean;
  /** Nodes, ServiceCIDRs (list, watch) and the `kubernetes` Service (get), for NO_PROXY. */
  discover: boolean;
}

export function apiReadsOf(config: ProxyInjectorConfig): ApiReads {
  return {
    namespaceConfigMap: config.namespaceConfigMap !== undefined,
    caBundle: config.caBundle !== undefined,
    readEnvFrom: config.readEnvFrom,
    discover: config.discover,
  };
}

/**
 * The ClusterRole rules the injector needs with this configuration (parsed, defaults applied),
 * and no more; empty when it reads nothing from the API.
 */
export function proxyInjectorApiRules(config: ProxyInjectorConfig): V1PolicyRule[] {
  const reads = apiReadsOf(config);
  const rules: V1PolicyRule[] = [];
  const configMapVerbs = [
    ...(reads.namespaceConfigMap || reads.caBundle ? ['list', 'watch'] : []),
    ...(reads.readEnvFrom ? ['get'] : []),
  ];
  if (configMapVerbs.length > 0) {
    rules.push({ apiGroups: [''], resources: ['configmaps'], verbs: configMapVerbs });
  }
  if (reads.discover) {
    rules.push(
      { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch'] },
      { apiGroups: ['networking.k8s.io'], resources: ['servicecidrs'], verbs: ['list', 'watch'] },
      { apiGroups: [''], resources: ['services'], resourceNames: ['kubernetes'], verbs: ['get'] },
    );
  }
  return rules;
}
