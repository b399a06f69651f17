// Where the apiserver should call the rewriter, ready for admission-core's
// renderWebhookConfiguration (which adds the exclusion of kube-system and the webhook's own
// namespace). Claims made by kube-controller-manager for StatefulSets and generic ephemeral
// volumes are CREATEs too, so they pass through the same rule.
import type { WebhookRegistration } from '@kfx/admission-core';

const pvcRewriterRules: WebhookRegistration['rules'] = [
  {
    apiGroups: [''],
    apiVersions: ['v1'],
    operations: ['CREATE'],
    resources: ['persistentvolumeclaims'],
    scope: 'Namespaced',
  },
];

/**
 * The registration for renderWebhookConfiguration: failurePolicy Ignore (a claim never waits on
 * the rewriter) and no reinvocation (the rewrite is decided once, on what the claim asked for).
 */
export function pvcRewriterRegistration(
  webhook: WebhookRegistration['webhook'],
  overrides: Partial<Omit<WebhookRegistration, 'webhook'>> = {},
): WebhookRegistration {
  return {
    webhook,
    rules: pvcRewriterRules,
    failurePolicy: 'Ignore',
    reinvocationPolicy: 'Never',
    ...overrides,
  };
}
