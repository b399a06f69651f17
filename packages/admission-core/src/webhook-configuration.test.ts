import { describe, expect, it } from 'vitest';
import {
  renderWebhookConfiguration,
  type WebhookConfigurationOptions,
} from './webhook-configuration.js';
import { defineMutatingWebhook, defineValidatingWebhook } from './webhook.js';

const injector = defineMutatingWebhook({
  name: 'proxy-injector',
  path: '/mutate/proxy-injector',
  failureMode: 'admit',
  mutate: () => ({ allowed: true }),
});

const guard = defineValidatingWebhook({
  name: 'guard',
  path: '/validate/guard',
  failureMode: 'deny',
  validate: () => ({ allowed: true }),
});

const podCreate = [
  { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] },
];

const base = {
  kind: 'mutating',
  name: 'kfx-webhook',
  namespace: 'kfx-system',
  service: { name: 'kfx-webhook' },
  webhooks: [{ webhook: injector, rules: podCreate }],
} satisfies WebhookConfigurationOptions;

describe('renderWebhookConfiguration', () => {
  it('renders a MutatingWebhookConfiguration that calls the service at the webhook path', () => {
    const rendered = renderWebhookConfiguration({ ...base, caBundle: 'PEM' });
    expect(rendered).toMatchObject({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'kfx-webhook' },
    });
    expect(rendered.webhooks?.[0]).toMatchObject({
      name: 'proxy-injector.kfx.dev',
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      clientConfig: {
        service: {
          name: 'kfx-webhook',
          namespace: 'kfx-system',
          path: '/mutate/proxy-injector',
          port: 443,
        },
        caBundle: Buffer.from('PEM').toString('base64'),
      },
      rules: podCreate,
      timeoutSeconds: 5,
      reinvocationPolicy: 'IfNeeded',
    });
  });

  it('never admits kube-system or its own namespace through the webhook, whatever else is selected', () => {
    const rendered = renderWebhookConfiguration({
      ...base,
      excludeNamespaces: ['istio-system'],
      webhooks: [
        {
          webhook: injector,
          rules: podCreate,
          namespaceSelector: {
            matchLabels: { 'app.kubernetes.io/part-of': 'kubeflow-profile' },
            matchExpressions: [{ key: 'kfx.dev/proxy', operator: 'NotIn', values: ['off'] }],
          },
          objectSelector: {
            matchExpressions: [
              { key: 'proxy-injector.kfx.dev/inject', operator: 'NotIn', values: ['false'] },
            ],
          },
        },
      ],
    });
    const webhook = rendered.webhooks?.[0];
    expect(webhook?.namespaceSelector).toEqual({
      matchLabels: { 'app.kubernetes.io/part-of': 'kubeflow-profile' },
      matchExpressions: [
        {
          key: 'kubernetes.io/metadata.name',
          operator: 'NotIn',
          values: ['kube-system', 'kfx-system', 'istio-system'],
        },
        { key: 'kfx.dev/proxy', operator: 'NotIn', values: ['off'] },
      ],
    });
    expect(webhook?.objectSelector?.matchExpressions?.[0]?.key).toBe(
      'proxy-injector.kfx.dev/inject',
    );
  });

  it('derives failurePolicy from the failure mode unless told', () => {
    const admit = renderWebhookConfiguration(base);
    expect(admit.webhooks?.[0]?.failurePolicy).toBe('Ignore');
    const told = renderWebhookConfiguration({
      ...base,
      webhooks: [
        {
          webhook: injector,
          rules: podCreate,
          failurePolicy: 'Fail',
          timeoutSeconds: 3,
          reinvocationPolicy: 'Never',
        },
      ],
    });
    expect(told.webhooks?.[0]).toMatchObject({
      failurePolicy: 'Fail',
      timeoutSeconds: 3,
      reinvocationPolicy: 'Never',
    });
    const guarded = renderWebhookConfiguration({
      ...base,
      kind: 'validating',
      webhooks: [{ webhook: guard, rules: podCreate }],
    });
    expect(guarded.kind).toBe('ValidatingWebhookConfiguration');
    expect(guarded.webhooks?.[0]?.failurePolicy).toBe('Fail');
    expect(guarded.webhooks?.[0]).not.toHaveProperty('reinvocationPolicy');
  });

  it('points at a URL outside the cluster and lets cert-manager inject the CA', () => {
    const { kind, name, namespace, webhooks } = base;
    const rendered = renderWebhookConfiguration({
      kind,
      name,
      namespace,
      webhooks,
      url: 'https://10.0.0.5:8443/',
      certManagerInjectFrom: 'kfx-system/kfx-webhook-serving',
    });
    expect(rendered.metadata?.annotations).toEqual({
      'cert-manager.io/inject-ca-from': 'kfx-system/kfx-webhook-serving',
    });
    expect(rendered.webhooks?.[0]?.clientConfig).toEqual({
      url: 'https://10.0.0.5:8443/mutate/proxy-injector',
    });
  });

  const mistakes: [string, Record<string, unknown>, string][] = [
    ['service and url', { url: 'https://x' }, 'give exactly one of service and url'],
    ['an http url', { service: undefined, url: 'http://x' }, 'url must start with https://'],
    [
      'both CA sources',
      { caBundle: 'x', certManagerInjectFrom: 'a/b' },
      'give caBundle or certManagerInjectFrom, not both',
    ],
    [
      'a bare certificate name',
      { certManagerInjectFrom: 'serving' },
      'certManagerInjectFrom must be namespace/certificate',
    ],
    [
      'a validating webhook in a mutating configuration',
      { webhooks: [{ webhook: guard, rules: podCreate }] },
      'webhook guard is validating',
    ],
    [
      'no rules',
      { webhooks: [{ webhook: injector, rules: [] }] },
      'webhook proxy-injector needs at least one rule',
    ],
    [
      'a 60 s timeout',
      { webhooks: [{ webhook: injector, rules: podCreate, timeoutSeconds: 60 }] },
      'timeoutSeconds must be 1-30',
    ],
    ['no namespace', { namespace: '' }, 'namespace (where the webhook server runs) is required'],
  ];

  it.each(mistakes)('refuses %s', (_what, change, message) => {
    const options = { ...base, ...change } as WebhookConfigurationOptions;
    expect(() => renderWebhookConfiguration(options)).toThrow(message);
  });
});
