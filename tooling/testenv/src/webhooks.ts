// Registering an admission webhook served outside the cluster (clientConfig.url on 127.0.0.1),
// so the real kube-apiserver calls a webhook server running in the test process.
import {
  AdmissionregistrationV1Api,
  type KubeConfig,
  type V1LabelSelector,
  type V1RuleWithOperations,
} from '@kubernetes/client-node';

export interface WebhookRegistration {
  /** Name of the configuration object and (with a `.kfx.dev` suffix) of its one webhook. */
  name: string;
  type?: 'mutating' | 'validating';
  /** `https://127.0.0.1:<port>/<path>` */
  url: string;
  /** PEM CA certificate that signed the webhook server's certificate. */
  caBundle: string;
  rules: V1RuleWithOperations[];
  failurePolicy?: 'Fail' | 'Ignore';
  namespaceSelector?: V1LabelSelector;
  objectSelector?: V1LabelSelector;
  timeoutSeconds?: number;
  reinvocationPolicy?: 'Never' | 'IfNeeded';
}

/** Creates (or replaces) the configuration; returns a function that deletes it. */
export async function registerWebhook(
  kc: KubeConfig,
  reg: WebhookRegistration,
): Promise<() => Promise<void>> {
  const api = kc.makeApiClient(AdmissionregistrationV1Api);
  const webhook = {
    name: reg.name.includes('.') ? reg.name : `${reg.name}.kfx.dev`,
    clientConfig: { url: reg.url, caBundle: Buffer.from(reg.caBundle).toString('base64') },
    rules: reg.rules,
    failurePolicy: reg.failurePolicy ?? 'Fail',
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    timeoutSeconds: reg.timeoutSeconds ?? 10,
    ...(reg.namespaceSelector ? { namespaceSelector: reg.namespaceSelector } : {}),
    ...(reg.objectSelector ? { objectSelector: reg.objectSelector } : {}),
  };
  const metadata = { name: reg.name };
  const remove = async (): Promise<void> => {
    try {
      if (reg.type === 'validating')
        await api.deleteValidatingWebhookConfiguration({ name: reg.name });
      else await api.deleteMutatingWebhookConfiguration({ name: reg.name });
    } catch (error) {
      if ((error as { code?: number }).code !== 404) throw error;
    }
  };
  await remove();
  if (reg.type === 'validating') {
    await api.createValidatingWebhookConfiguration({ body: { metadata, webhooks: [webhook] } });
  } else {
    await api.createMutatingWebhookConfiguration({
      body: {
        metadata,
        webhooks: [{ ...webhook, reinvocationPolicy: reg.reinvocationPolicy ?? 'Never' }],
      },
    });
  }
  return remove;
}
