// `namespace`: for clusters without the upstream Kubeflow profile controller, the Profile's
// namespace itself, with the owner annotation and the labels Kubeflow's components look for
// (`istio-injection: enabled` among them, as upstream), a Pod Security Admission level (today's
// form of the PodSecurityPolicy-era fixes sites used), and the ServiceAccounts `default-editor`
// and `default-viewer` that notebooks, pipelines and test Jobs run as, each bound to its
// ClusterRole (`kubeflow-edit`, `kubeflow-view`) by a RoleBinding of its name, as upstream does.
import { resources } from '@kfx/kube-runtime';
import type { V1Namespace, V1RoleBinding, V1ServiceAccount } from '@kubernetes/client-node';
import { z } from 'zod';
import { profileNamespace } from '../profile.js';
import { defineReconciler } from '../reconciler.js';
import { dnsLabel, labelKey, rbacName } from '../schemas.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const level = z.enum(['privileged', 'baseline', 'restricted']);

/** What the upstream controller puts on a profile namespace. */
const KUBEFLOW_NAMESPACE_LABELS: Readonly<Record<string, string>> = {
  'app.kubernetes.io/part-of': 'kubeflow-profile',
  'katib.kubeflow.org/metrics-collector-injection': 'enabled',
  'pipelines.kubeflow.org/enabled': 'true',
  'serving.kubeflow.org/inferenceservice': 'enabled',
};

const ISTIO_INJECTION_LABEL = 'istio-injection';

/** The upstream controller's ServiceAccounts and the ClusterRoles their RoleBindings name. */
const KUBEFLOW_SERVICE_ACCOUNTS: readonly { name: string; clusterRole: string }[] = [
  { name: 'default-editor', clusterRole: 'kubeflow-edit' },
  { name: 'default-viewer', clusterRole: 'kubeflow-view' },
];

const serviceAccount = z
  .union([
    dnsLabel,
    z.strictObject({
      name: dnsLabel,
      /** Bound to this ClusterRole by a RoleBinding of the ServiceAccount's name. */
      clusterRole: rbacName.optional(),
    }),
  ])
  .transform((entry) => (typeof entry === 'string' ? { name: entry } : entry));

const namespaceConfigSchema = z
  .strictObject({
    /** Labels on every profile namespace; replaces the Kubeflow defaults when given. */
    labels: z
      .record(labelKey, z.string().max(63))
      .refine((labels) => !(ISTIO_INJECTION_LABEL in labels), {
        message: `set the ${ISTIO_INJECTION_LABEL} label with istioInjection (true or false)`,
      })
      .default({ ...KUBEFLOW_NAMESPACE_LABELS }),
    /** `istio-injection: enabled`, as the upstream controller sets in its default sidecar mode. */
    istioInjection: z.boolean().default(true),
    /** Pod Security Admission levels (`pod-security.kubernetes.io/<mode>` labels). */
    podSecurity: z
      .strictObject({ enforce: level.optional(), audit: level.optional(), warn: level.optional() })
      .default({ enforce: 'baseline' }),
    /** ServiceAccounts made in every profile namespace (and bound), as the upstream controller does. */
    serviceAccounts: z
      .array(serviceAccount)
      .refine((list) => new Set(list.map((a) => a.name)).size === list.length, {
        message: 'ServiceAccount names must be unique',
      })
      .default(KUBEFLOW_SERVICE_ACCOUNTS.map((a) => ({ ...a }))),
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
    ...(config.serviceAccounts.some((a) => a.clusterRole)
      ? [{ apiVersion: `${RBAC_GROUP}/v1`, kind: resources.roleBindings.kind }]
      : []),
  ],
  desired(profile, { config }) {
    const labels: Record<string, string> = { ...config.labels };
    if (config.istioInjection) labels[ISTIO_INJECTION_LABEL] = 'enabled';
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
    const home = profileNamespace(profile);
    const serviceAccounts = config.serviceAccounts.map(({ name }): V1ServiceAccount => ({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name, namespace: home },
    }));
    const bindings = config.serviceAccounts.flatMap(({ name, clusterRole }): V1RoleBinding[] =>
      clusterRole
        ? [
            {
              apiVersion: `${RBAC_GROUP}/v1`,
              kind: 'RoleBinding',
              metadata: { name, namespace: home },
              roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: clusterRole },
              subjects: [{ kind: 'ServiceAccount', name, namespace: home }],
            },
          ]
        : [],
    );
    return {
      objects: [namespace, ...serviceAccounts, ...bindings],
      problems: owner
        ? []
        : [{ message: 'the Profile has no spec.owner.name for the owner annotation' }],
    };
  },
});
