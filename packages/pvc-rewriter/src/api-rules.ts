// What the rewriter reads from the API under a configuration (cluster-state.ts's caches), and
// the ClusterRole rules that needs: one answer for the webhook and the kfx-webhook chart, which
// is tested against it.
import type { V1PolicyRule } from '@kubernetes/client-node';
import type { PvcRewriterConfig } from './config.js';

/** Namespaces are watched only when a rule selects by their labels. */
export const watchesNamespaces = (config: PvcRewriterConfig): boolean =>
  config.rules.some((rule) => rule.namespaceSelector !== undefined);

/** The ClusterRole rules the rewriter needs with this configuration (parsed), and no more. */
export function pvcRewriterApiRules(config: PvcRewriterConfig): V1PolicyRule[] {
  return [
    { apiGroups: ['storage.k8s.io'], resources: ['storageclasses'], verbs: ['list', 'watch'] },
    ...(watchesNamespaces(config)
      ? [{ apiGroups: [''], resources: ['namespaces'], verbs: ['list', 'watch'] }]
      : []),
  ];
}
