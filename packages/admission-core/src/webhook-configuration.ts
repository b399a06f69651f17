// Renders the MutatingWebhookConfiguration or ValidatingWebhookConfiguration that sends the
// apiserver to these webhooks, with the safe defaults written down once: only v1 reviews, no
// side effects, and the webhook's own namespace and kube-system never admitted through it (a
// broken webhook must not block its own recovery).
import type {
  V1LabelSelector,
  V1MatchCondition,
  V1MutatingWebhook,
  V1MutatingWebhookConfiguration,
  V1RuleWithOperations,
  V1ValidatingWebhookConfiguration,
} from '@kubernetes/client-node';
import type { Plain } from './review/plain-json.js';
import type { FailureMode } from './webhook.js';

type LabelSelector = Plain<V1LabelSelector>;
type MutatingWebhookJson = Plain<V1MutatingWebhook>;
export type MutatingWebhookConfiguration = Plain<V1MutatingWebhookConfiguration>;
export type ValidatingWebhookConfiguration = Plain<V1ValidatingWebhookConfiguration>;

export interface WebhookRegistration {
  /** The webhook as defined for the server: its name, path, type and failure mode are used. */
  webhook: {
    name: string;
    path: string;
    type: 'mutating' | 'validating';
    failureMode: FailureMode;
  };
  rules: Plain<V1RuleWithOperations>[];
  /** Added to the exclusion of kube-system and the server's own namespace. */
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  /** What the apiserver does when it cannot get an answer. Default: Fail for failureMode deny, Ignore for admit. */
  failurePolicy?: 'Fail' | 'Ignore';
  /** Mutating only. Default IfNeeded: containers added by later webhooks are seen too. */
  reinvocationPolicy?: 'Never' | 'IfNeeded';
  /** 1-30. Default 5: a slow webhook stalls every matching request in the cluster. */
  timeoutSeconds?: number;
  matchPolicy?: 'Exact' | 'Equivalent';
  matchConditions?: Plain<V1MatchCondition>[];
}

export interface WebhookConfigurationOptions {
  kind: 'mutating' | 'validating';
  /** Name of the configuration object. */
  name: string;
  /** Namespace the webhook server runs in; excluded from admission, with kube-system. */
  namespace: string;
  webhooks: readonly WebhookRegistration[];
  /** In-cluster Service in front of the server. Namespace defaults to `namespace`, port to 443. */
  service?: { name: string; namespace?: string; port?: number };
  /** Base URL of a server outside the cluster, e.g. `https://10.0.0.5:8443`; the path is appended. */
  url?: string;
  /** PEM CA that signed the serving certificate. */
  caBundle?: string;
  /** `namespace/certificate` of a cert-manager Certificate whose CA cainjector writes in. */
  certManagerInjectFrom?: string;
  /** Suffix that makes webhook names fully qualified. Default `kfx.dev` (→ `proxy-injector.kfx.dev`). */
  domain?: string;
  /** More namespaces never admitted through these webhooks. */
  excludeNamespaces?: readonly string[];
  labels?: Record<string, string>;
}

function fail(message: string): never {
  throw new TypeError(`renderWebhookConfiguration: ${message}`);
}

function clientConfig(options: WebhookConfigurationOptions, path: string) {
  const { service, url, caBundle } = options;
  if ((service === undefined) === (url === undefined)) fail('give exactly one of service and url');
  const ca = caBundle === undefined ? {} : { caBundle: Buffer.from(caBundle).toString('base64') };
  if (url !== undefined) {
    if (!url.startsWith('https://')) fail(`url must start with https:// (got ${url})`);
    return { url: `${url.replace(/\/+$/, '')}${path}`, ...ca };
  }
  const { name, namespace = options.namespace, port = 443 } = service ?? fail('unreachable');
  return { service: { name, namespace, path, port }, ...ca };
}

function namespaceSelector(
  options: WebhookConfigurationOptions,
  extra?: LabelSelector,
): LabelSelector {
  const excluded = [
    ...new Set(['kube-system', options.namespace, ...(options.excludeNamespaces ?? [])]),
  ];
  const exclusion = { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: excluded };
  return {
    ...(extra?.matchLabels ? { matchLabels: extra.matchLabels } : {}),
    matchExpressions: [exclusion, ...(extra?.matchExpressions ?? [])],
  };
}

function render(
  options: WebhookConfigurationOptions,
  registration: WebhookRegistration,
): MutatingWebhookJson {
  const { webhook, timeoutSeconds = 5 } = registration;
  if (webhook.type !== options.kind) {
    fail(
      `webhook ${webhook.name} is ${webhook.type}; it cannot go in a ${options.kind} configuration`,
    );
  }
  if (!Array.isArray(registration.rules) || registration.rules.length === 0) {
    fail(`webhook ${webhook.name} needs at least one rule`);
  }
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 30) {
    fail(`webhook ${webhook.name}: timeoutSeconds must be 1-30, got ${timeoutSeconds}`);
  }
  return {
    name: `${webhook.name}.${options.domain ?? 'kfx.dev'}`,
    admissionReviewVersions: ['v1'],
    clientConfig: clientConfig(options, webhook.path),
    rules: registration.rules,
    failurePolicy:
      registration.failurePolicy ?? (webhook.failureMode === 'deny' ? 'Fail' : 'Ignore'),
    sideEffects: 'None',
    timeoutSeconds,
    matchPolicy: registration.matchPolicy ?? 'Equivalent',
    namespaceSelector: namespaceSelector(options, registration.namespaceSelector),
    ...(registration.objectSelector ? { objectSelector: registration.objectSelector } : {}),
    ...(registration.matchConditions ? { matchConditions: registration.matchConditions } : {}),
    ...(options.kind === 'mutating'
      ? { reinvocationPolicy: registration.reinvocationPolicy ?? 'IfNeeded' }
      : {}),
  };
}

/** Renders the configuration object as plain JSON, ready to apply or to print as YAML. */
export function renderWebhookConfiguration(
  options: WebhookConfigurationOptions & { kind: 'mutating' },
): MutatingWebhookConfiguration;
export function renderWebhookConfiguration(
  options: WebhookConfigurationOptions & { kind: 'validating' },
): ValidatingWebhookConfiguration;
export function renderWebhookConfiguration(
  options: WebhookConfigurationOptions,
): MutatingWebhookConfiguration | ValidatingWebhookConfiguration;
export function renderWebhookConfiguration(
  options: WebhookConfigurationOptions,
): MutatingWebhookConfiguration | ValidatingWebhookConfiguration {
  const { kind, name, certManagerInjectFrom, caBundle } = options;
  if (!['mutating', 'validating'].includes(kind)) fail('kind must be "mutating" or "validating"');
  if (!name) fail('name is required');
  if (!options.namespace) fail('namespace (where the webhook server runs) is required');
  if (caBundle !== undefined && certManagerInjectFrom !== undefined) {
    fail('give caBundle or certManagerInjectFrom, not both');
  }
  if (certManagerInjectFrom !== undefined && !/^[^/]+\/[^/]+$/.test(certManagerInjectFrom)) {
    fail(`certManagerInjectFrom must be namespace/certificate, got ${certManagerInjectFrom}`);
  }
  if (options.webhooks.length === 0) fail('webhooks must list at least one webhook');
  const metadata = {
    name,
    ...(options.labels ? { labels: options.labels } : {}),
    ...(certManagerInjectFrom
      ? { annotations: { 'cert-manager.io/inject-ca-from': certManagerInjectFrom } }
      : {}),
  };
  const webhooks = options.webhooks.map((registration) => render(options, registration));
  if (kind === 'validating') {
    return {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata,
      webhooks: webhooks.map(({ reinvocationPolicy: _, ...webhook }) => webhook),
    };
  }
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata,
    webhooks,
  };
}
