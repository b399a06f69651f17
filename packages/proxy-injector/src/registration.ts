// Where the apiserver should call the injector: the rules and the namespace opt-out, ready for
// admission-core's renderWebhookConfiguration (which adds the exclusion of kube-system and the
// webhook's own namespace).
import type { WebhookRegistration } from '@kfx/admission-core';
import { INJECT_LABEL } from './opt-out.js';

/** Pods on CREATE, and ephemeral containers (kubectl debug) when they are added. */
export const proxyInjectorRules: WebhookRegistration['rules'] = [
  {
    apiGroups: [''],
    apiVersions: ['v1'],
    operations: ['CREATE'],
    resources: ['pods'],
    scope: 'Namespaced',
  },
  {
    apiGroups: [''],
    apiVersions: ['v1'],
    operations: ['UPDATE'],
    resources: ['pods/ephemeralcontainers'],
    scope: 'Namespaced',
  },
];

/** Namespaces labelled `proxy-injector.kfx.dev/inject: "false"` are never sent to the webhook. */
const proxyInjectorNamespaceSelector: NonNullable<WebhookRegistration['namespaceSelector']> = {
  matchExpressions: [{ key: INJECT_LABEL, operator: 'NotIn', values: ['false'] }],
};

/**
 * The registration of the injector for renderWebhookConfiguration: the rules, the namespace
 * opt-out, failurePolicy Ignore (a Pod never waits on the injector) and reinvocation, so that
 * containers another webhook adds later (a sidecar injector) get the variables too.
 */
export function proxyInjectorRegistration(
  webhook: WebhookRegistration['webhook'],
  overrides: Partial<Omit<WebhookRegistration, 'webhook'>> = {},
): WebhookRegistration {
  return {
    webhook,
    rules: proxyInjectorRules,
    namespaceSelector: proxyInjectorNamespaceSelector,
    failurePolicy: 'Ignore',
    reinvocationPolicy: 'IfNeeded',
    ...overrides,
  };
}
