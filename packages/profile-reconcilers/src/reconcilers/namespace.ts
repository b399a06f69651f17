// `namespace`: for clusters without the upstream Kubeflow profile controller, the Profile's
// namespace itself, with the owner annotation and labels Kubeflow's components look for, a Pod
// Security Admission level (today's form of the PodSecurityPolicy-era fixes sites used), and the
// ServiceAccounts `default-editor` and `default-viewer` that notebooks, pipelines and test Jobs
// run as.
import { resources } from '@kfx/kube-runtime';
import type { V1Namespace, V1ServiceAccount } from '@kubernetes/client-node';
import { z } from 'zod';
import { profileNamespace } from '../profile.js';
import { defineReconciler } from '../reconciler.js';
import { labelKey } from '../schemas.js';

const level = z.enum(['privileged', 'baseline', 'restricted']);

/** What the upstream controller puts on a profile namespace. */
export const KUBEFLOW_NAMESPACE_LABELS: Readonly<Record<string, string>> = {
  'app.kubernetes.io/part-of': 'kubeflow-profile',
  'katib.kubeflow.org/metrics-collector-injection': 'enabled',
  'pipelines.kubeflow.org/enabled': 'true',
  'serving.kubeflow.org/inferenceservice': 'enabled',
};

export const namespaceConfigSchema = z
  .strictObject({
    /** Labels on every profile namespace; replaces the Kubeflow defaults when given. */
    labels: z.record(labelKey, z.string().max(63)).default({ ...KUBEFLOW_NAMESPACE_LABELS }),
    /** Pod Security Admission levels (`pod-security.kubernetes.io/<mode>` labels). */
    podSecurity: z
      .strictObject({ enforce: level.optional(), audit: level.optional(), warn: level.optional() })
      .default({ enforce: 'baseline' }),
    /** ServiceAccounts made in every profile namespace, as the upstream controller does. */
    serviceAccounts: z
      .array(z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'expected a DNS label'))
      .default(['default-editor', 'default-viewer']),
  })
  .prefault({});

export type NamespaceConfig = z.infer<typeof namespaceConfigSchema>;

export const namespaceReconciler = defineReconciler<NamespaceConfig>({
  name: 'namespace',
  configSchema: namespaceConfigSchema,
  kinds: (config) => [
    { apiVersion: 'v1', kind: resources.namespaces.kind },
    ...(config.serviceAccounts.length > 0
      ? [{ apiVersion: 'v1', kind: resources.serviceAccounts.kind }]
      : []),
  ],
  desired(profile, { config }) {
    const labels: Record<string, string> = { ...config.labels };
    for (const [mode, value] of Object.entries(config.podSecurity)) {
      if (value) labels[`pod-security.kubernetes.io/${mode}`] = value;
    }
    const owner = profile.spec?.owner?.name;
    const namespace: V1Namespace = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: profileNamespace(profile),
        labels,
        ...(owner ? { annotations: { owner } } : {}),
      },
    };
    const serviceAccounts = config.serviceAccounts.map((name): V1ServiceAccount => ({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name, namespace: profileNamespace(profile) },
    }));
    return {
      objects: [namespace, ...serviceAccounts],
      problems: owner
        ? []
        : [{ message: 'the Profile has no spec.owner.name for the owner annotation' }],
    };
  },
});
