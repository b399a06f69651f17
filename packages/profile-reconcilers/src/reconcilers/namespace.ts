// `namespace`: for clusters without the upstream Kubeflow profile controller, the Profile's
// namespace itself, with the owner annotation and the labels Kubeflow's components look for
// (`istio-injection: enabled` among them, as upstream), a Pod Security Admission level (today's
// form of the PodSecurityPolicy-era fixes sites used), and the ServiceAccounts `default-editor`
// and `default-viewer` that notebooks, pipelines and test Jobs run as, each bound to its
// ClusterRole (`kubeflow-edit`, `kubeflow-view`) by a RoleBinding of its name, as upstream does.
// The ServiceAccounts carry the image pull secrets configured, and `default-editor` the cloud
// identity the Profile's `spec.plugins` ask for (profile-plugins.ts).
//
// Pod Security defaults must hold in both Istio modes: a sidecar injected without Istio CNI
// comes with an `istio-init` container that adds NET_ADMIN and NET_RAW, which `baseline`
// refuses, so with injection on and no CNI the default only warns and audits at `baseline`, and
// enforcing is a configuration error. A tenant's exception (a GPU team that needs `privileged`)
// is a label on its Profile, `pod-security.kfx.dev/<mode>: <level>`: a label edited on the
// namespace itself is put back at the next reconcile.
import { resources } from '@kfx/kube-runtime';
import type { V1Namespace, V1RoleBinding, V1ServiceAccount } from '@kubernetes/client-node';
import { z } from 'zod';
import { profileNamespace, type Profile } from '../profile.js';
import { defineReconciler } from '../reconciler.js';
import { pluginAnnotations } from '../profile-plugins.js';
import type { Problem } from '../reconciler.js';
import { dnsLabel, labelKey, labelPrefix, objectName, rbacName } from '../schemas.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const LEVELS = ['privileged', 'baseline', 'restricted'] as const;
const MODES = ['enforce', 'audit', 'warn'] as const;
const level = z.enum(LEVELS);
type PodSecurity = Partial<Record<(typeof MODES)[number], (typeof LEVELS)[number] | undefined>>;

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
      /** Image pull secrets of this ServiceAccount, besides `imagePullSecrets`. */
      imagePullSecrets: z.array(objectName).default([]),
    }),
  ])
  .transform((entry) =>
    typeof entry === 'string' ? { name: entry, imagePullSecrets: [] as string[] } : entry,
  );

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
    /** Istio CNI installs the sidecar's traffic rules: no `istio-init` needing NET_ADMIN. */
    istioCni: z.boolean().default(false),
    /**
     * Pod Security Admission levels (`pod-security.kubernetes.io/<mode>` labels). Default:
     * enforce baseline, or only warn and audit at baseline while sidecars are injected without
     * Istio CNI.
     */
    podSecurity: z
      .strictObject({ enforce: level.optional(), audit: level.optional(), warn: level.optional() })
      .optional(),
    /** A Profile's label `<prefix>/<mode>: <level>` sets that mode for its namespace. */
    podSecurityLabelPrefix: labelPrefix.default('pod-security.kfx.dev'),
    /** Image pull secrets of every ServiceAccount made (copy them in with `secrets`). */
    imagePullSecrets: z.array(objectName).default([]),
    /** The ServiceAccount that gets the cloud identity of the Profile's spec.plugins. */
    pluginServiceAccount: dnsLabel.default('default-editor'),
    /** ServiceAccounts made in every profile namespace (and bound), as the upstream controller does. */
    serviceAccounts: z
      .array(serviceAccount)
      .refine((list) => new Set(list.map((a) => a.name)).size === list.length, {
        message: 'ServiceAccount names must be unique',
      })
      .default(KUBEFLOW_SERVICE_ACCOUNTS.map((a) => ({ ...a, imagePullSecrets: [] }))),
  })
  .superRefine((config, context) => {
    const enforced = config.podSecurity?.enforce;
    if (config.istioInjection && !config.istioCni && enforced && enforced !== 'privileged') {
      context.addIssue({
        code: 'custom',
        path: ['podSecurity', 'enforce'],
        message: `${enforced} refuses every Pod with an Istio sidecar injected without Istio CNI (its istio-init container adds NET_ADMIN and NET_RAW): set istioCni: true where Istio CNI runs, istioInjection: false for ambient mode, or only warn and audit`,
      });
    }
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
    const problems: Problem[] = [];
    const labels: Record<string, string> = { ...config.labels };
    if (config.istioInjection) labels[ISTIO_INJECTION_LABEL] = 'enabled';
    const podSecurity = {
      ...defaultPodSecurity(config),
      ...tenantPodSecurity(profile, config, problems),
    };
    for (const [mode, value] of Object.entries(podSecurity)) {
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
    const plugins = pluginAnnotations(profile, config.pluginServiceAccount);
    problems.push(...plugins.problems);
    const identity = Object.keys(plugins.annotations).length > 0;
    if (identity && !config.serviceAccounts.some((a) => a.name === config.pluginServiceAccount)) {
      problems.push({
        message: `spec.plugins annotate ServiceAccount ${config.pluginServiceAccount}, which namespace.serviceAccounts does not make`,
      });
    }
    const serviceAccounts = config.serviceAccounts.map(
      ({ name, imagePullSecrets }): V1ServiceAccount => {
        const pullSecrets = [...new Set([...config.imagePullSecrets, ...imagePullSecrets])];
        const annotations =
          name === config.pluginServiceAccount && identity ? plugins.annotations : undefined;
        return {
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: { name, namespace: home, ...(annotations ? { annotations } : {}) },
          ...(pullSecrets.length > 0
            ? { imagePullSecrets: pullSecrets.map((secret) => ({ name: secret })) }
            : {}),
        };
      },
    );
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
    if (!owner)
      problems.push({ message: 'the Profile has no spec.owner.name for the owner annotation' });
    return { objects: [namespace, ...serviceAccounts, ...bindings], problems };
  },
});

/** The configured levels, or the default that admits Pods in either Istio mode. */
function defaultPodSecurity(config: NamespaceConfig): PodSecurity {
  if (config.podSecurity) return config.podSecurity;
  if (config.istioInjection && !config.istioCni) return { warn: 'baseline', audit: 'baseline' };
  return { enforce: 'baseline' };
}

/** A tenant's exception, from its Profile's labels `<prefix>/<mode>: <level>`. */
function tenantPodSecurity(
  profile: Profile,
  config: NamespaceConfig,
  problems: Problem[],
): PodSecurity {
  const chosen: PodSecurity = {};
  const start = `${config.podSecurityLabelPrefix}/`;
  for (const [label, value] of Object.entries(profile.metadata?.labels ?? {})) {
    if (!label.startsWith(start)) continue;
    const mode = label.slice(start.length);
    if (
      !(MODES as readonly string[]).includes(mode) ||
      !(LEVELS as readonly string[]).includes(value)
    ) {
      problems.push({
        label,
        value,
        message: `label ${label}="${value}" ignored: expected ${start}<${MODES.join('|')}>: <${LEVELS.join('|')}>`,
      });
      continue;
    }
    chosen[mode as (typeof MODES)[number]] = value as (typeof LEVELS)[number];
  }
  return chosen;
}
