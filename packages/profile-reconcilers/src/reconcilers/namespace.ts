// `namespace`: for clusters without the upstream Kubeflow profile controller, the Profile's
// namespace itself, with the owner annotation and the labels Kubeflow's components look for
// (`istio-injection: enabled` among them, as upstream), its Pod Security (today's form of the
// PodSecurityPolicy-era fixes sites used), and the ServiceAccounts `default-editor` and
// `default-viewer` that notebooks, pipelines and test Jobs run as, each bound to its ClusterRole
// (`kubeflow-edit`, `kubeflow-view`) by a RoleBinding of its name, as upstream does. The
// ServiceAccounts carry the image pull secrets configured, and `default-editor` the cloud
// identity the Profile's `spec.plugins` ask for (profile-plugins.ts), within the ceilings, with
// its Google binding made through Config Connector where configured (workload-identity.ts).
//
// The Kubeflow labels (and `istio-injection`) are set as upstream sets its labels file: only
// where the namespace lacks the key, so an administrator's `istio-injection: disabled` on one
// namespace stays; `""` removes a key. A label named in `enforcedLabels` is put back instead,
// with an Event (controller/namespace-labels.ts).
//
// Pod Security `baseline` is enforced by default in both Istio modes (pod-security/): by Pod
// Security Admission where it can, and where sidecars are injected without Istio CNI (whose
// istio-init adds NET_ADMIN and NET_RAW) by the ValidatingAdmissionPolicy the chart ships, which
// exempts exactly that container. A tenant's exception (a GPU team that needs `privileged`) is a
// label on its Profile, `pod-security.kfx.dev/<mode>: <level>`, applied when it tightens or when
// `ceilings.podSecurity` allows the level: a label edited on the namespace itself is put back at
// the next reconcile.
import { resources, type KubeObject } from '@kfx/kube-runtime/client';
import type { V1Namespace, V1RoleBinding, V1ServiceAccount } from '@kubernetes/client-node';
import { z } from 'zod';
import { KUBEFLOW_EDITOR_SERVICE_ACCOUNT, KUBEFLOW_SERVICE_ACCOUNTS } from '../kubeflow-names.js';
import { profileNamespace } from '../profile.js';
import { defineReconciler } from '../reconciler.js';
import { pluginIdentities } from '../profile-plugins.js';
import {
  IAM_POLICY_MEMBER,
  workloadIdentityBinding,
  workloadIdentitySchema,
} from '../workload-identity.js';
import type { Problem, RequiredObject } from '../reconciler.js';
import type { NamespaceLabelPlan } from '../controller/namespace-labels.js';
import { dnsLabel, labelKey, labelPrefix, objectName, rbacName } from '../schemas.js';
import {
  BASELINE_POLICY_LABEL,
  BASELINE_POLICY_NAME,
  VALIDATING_ADMISSION_POLICIES,
  VALIDATING_ADMISSION_POLICY_BINDINGS,
} from '../pod-security/baseline-policy.js';
import { PROXY_IMAGE_PATTERN } from '../pod-security/istio-init.js';
import {
  configuredPodSecurity,
  LEVELS,
  podSecurityMarks,
  requestedPodSecurity,
  sidecarsWithoutCni,
} from '../pod-security/namespace-levels.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const level = z.enum(LEVELS);

/** The images Istio's injector gives istio-init from its official hubs, any tag. */
const ISTIO_PROXY_IMAGES = ['docker.io/istio/proxyv2:*', 'gcr.io/istio-release/proxyv2:*'];

/** What the upstream controller puts on a profile namespace. */
const KUBEFLOW_NAMESPACE_LABELS: Readonly<Record<string, string>> = {
  'app.kubernetes.io/part-of': 'kubeflow-profile',
  'katib.kubeflow.org/metrics-collector-injection': 'enabled',
  'pipelines.kubeflow.org/enabled': 'true',
  'serving.kubeflow.org/inferenceservice': 'enabled',
};

const ISTIO_INJECTION_LABEL = 'istio-injection';

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
    /**
     * Labels on every profile namespace, set where it lacks them (a value it holds stays, as
     * upstream); `""` removes the key. Replaces the Kubeflow defaults when given.
     */
    labels: z
      .record(labelKey, z.string().max(63))
      .refine((labels) => !(ISTIO_INJECTION_LABEL in labels), {
        message: `set the ${ISTIO_INJECTION_LABEL} label with istioInjection (true or false)`,
      })
      .default({ ...KUBEFLOW_NAMESPACE_LABELS }),
    /**
     * Labels (of `labels`, or `istio-injection`) whose value kfx puts back, with an Event, when
     * someone changes it on a namespace; the others are defaults.
     */
    enforcedLabels: z
      .array(labelKey)
      .refine((keys) => new Set(keys).size === keys.length, {
        message: 'label keys must be unique',
      })
      .default([]),
    /** `istio-injection: enabled`, as the upstream controller sets in its default sidecar mode. */
    istioInjection: z.boolean().default(true),
    /** Istio CNI installs the sidecar's traffic rules: no `istio-init` needing NET_ADMIN. */
    istioCni: z.boolean().default(false),
    /**
     * The images istio-init may run with NET_ADMIN and NET_RAW where sidecars are injected
     * without Istio CNI: what the injector writes (`<hub>/proxyv2:<tag>`), or a repository with
     * `:*` (any tag) or `@*` (any digest).
     */
    istioProxyImages: z
      .array(
        z
          .string()
          .regex(
            PROXY_IMAGE_PATTERN,
            'expected an image such as docker.io/istio/proxyv2:1.26.2, or a repository with :* or @*',
          ),
      )
      .min(1)
      .default([...ISTIO_PROXY_IMAGES]),
    /**
     * Pod Security levels (`pod-security.kubernetes.io/<mode>` labels). Default: enforce
     * baseline; with sidecars injected without Istio CNI, by the ValidatingAdmissionPolicy
     * kfx-pod-security-baseline (istio-init exempt), and warn and audit at baseline.
     */
    podSecurity: z
      .strictObject({ enforce: level.optional(), audit: level.optional(), warn: level.optional() })
      .optional(),
    /** A Profile's label `<prefix>/<mode>: <level>` sets that mode for its namespace. */
    podSecurityLabelPrefix: labelPrefix.default('pod-security.kfx.dev'),
    /** Image pull secrets of every ServiceAccount made (copy them in with `secrets`). */
    imagePullSecrets: z.array(objectName).default([]),
    /** The ServiceAccount that gets the cloud identity of the Profile's spec.plugins. */
    pluginServiceAccount: dnsLabel.default(KUBEFLOW_EDITOR_SERVICE_ACCOUNT),
    /** ServiceAccounts made in every profile namespace (and bound), as the upstream controller does. */
    serviceAccounts: z
      .array(serviceAccount)
      .refine((list) => new Set(list.map((a) => a.name)).size === list.length, {
        message: 'ServiceAccount names must be unique',
      })
      .default(KUBEFLOW_SERVICE_ACCOUNTS.map((a) => ({ ...a, imagePullSecrets: [] }))),
    /** Who binds the Google service account of a WorkloadIdentity plugin (workload-identity.ts). */
    workloadIdentity: workloadIdentitySchema,
  })
  .superRefine((config, context) => {
    for (const [i, key] of config.enforcedLabels.entries()) {
      const set =
        key === ISTIO_INJECTION_LABEL ? config.istioInjection : Boolean(config.labels[key]);
      if (!set) {
        context.addIssue({
          code: 'custom',
          path: ['enforcedLabels', i],
          message:
            key === ISTIO_INJECTION_LABEL
              ? `${key} is enforced only with istioInjection: true`
              : `${key} is not set by labels (with a value): nothing to enforce`,
        });
      }
    }
    const enforced = config.podSecurity?.enforce;
    if (config.istioInjection && !config.istioCni && enforced === 'restricted') {
      context.addIssue({
        code: 'custom',
        path: ['podSecurity', 'enforce'],
        message: `restricted refuses every Pod with an Istio sidecar injected without Istio CNI (its istio-init container adds NET_ADMIN and NET_RAW): set istioCni: true where Istio CNI runs, istioInjection: false for ambient mode, or enforce baseline (kfx's admission policy exempts istio-init)`,
      });
    }
  })
  .prefault({});

export type NamespaceConfig = z.infer<typeof namespaceConfigSchema>;

const bindingProblem = (binding: KubeObject): string | undefined => {
  const spec = (binding as { spec?: { policyName?: unknown; validationActions?: unknown } }).spec;
  if (spec?.policyName !== BASELINE_POLICY_NAME) {
    return `it binds ${JSON.stringify(spec?.policyName)}, not ${BASELINE_POLICY_NAME}`;
  }
  const actions = Array.isArray(spec.validationActions) ? spec.validationActions : [];
  if (!actions.includes('Deny')) {
    return `its validationActions (${actions.join(', ') || 'none'}) do not include Deny`;
  }
  return undefined;
};

/** The admission policy (and binding) that enforces baseline in sidecar-mode namespaces. */
const BASELINE_POLICY_OBJECTS: RequiredObject[] = [
  VALIDATING_ADMISSION_POLICIES,
  VALIDATING_ADMISSION_POLICY_BINDINGS,
].map((ref) => ({
  ref,
  name: BASELINE_POLICY_NAME,
  why: 'Pod Security baseline is not enforced in the namespace',
  fix: "install it with the kfx-controller chart, or apply @kfx/profile-reconcilers' baselinePolicyObjects()",
  ...(ref === VALIDATING_ADMISSION_POLICY_BINDINGS ? { check: bindingProblem } : {}),
}));

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
    ...(config.workloadIdentity.binding === 'config-connector' ? [IAM_POLICY_MEMBER] : []),
  ],
  requires: (config) => (sidecarsWithoutCni(config) ? BASELINE_POLICY_OBJECTS : []),
  namespaces: ({ workloadIdentity }) =>
    workloadIdentity.binding === 'config-connector' && workloadIdentity.namespace
      ? [
          {
            name: workloadIdentity.namespace,
            why: 'the Config Connector IAMPolicyMembers of WorkloadIdentity plugins go there',
          },
        ]
      : [],
  namespaceLabelKeys: (config) => [...Object.keys(config.labels), ISTIO_INJECTION_LABEL],
  desired(profile, { config, ceilings }) {
    const problems: Problem[] = [];
    const { labels, namespaceLabels } = kubeflowLabels(config);
    const configured = configuredPodSecurity(config);
    const levels = {
      ...configured,
      ...requestedPodSecurity(profile, config, ceilings, configured, problems),
    };
    const marks = podSecurityMarks(levels, config);
    Object.assign(labels, marks.labels);
    const owner = profile.spec?.owner?.name;
    const annotations = { ...(owner ? { owner } : {}), ...marks.annotations };
    const namespace: V1Namespace = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: profileNamespace(profile),
        labels,
        ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      },
    };
    const home = profileNamespace(profile);
    const identity = config.workloadIdentity;
    const plugins = pluginIdentities(profile, {
      serviceAccount: config.pluginServiceAccount,
      ceilings,
      gcpBinding: identity.binding,
      pool: identity.pool,
    });
    problems.push(...plugins.problems);
    const annotated = Object.keys(plugins.annotations).length > 0;
    if (annotated && !config.serviceAccounts.some((a) => a.name === config.pluginServiceAccount)) {
      problems.push({
        message: `spec.plugins annotate ServiceAccount ${config.pluginServiceAccount}, which namespace.serviceAccounts does not make`,
      });
    }
    const serviceAccounts = config.serviceAccounts.map(
      ({ name, imagePullSecrets }): V1ServiceAccount => {
        const pullSecrets = [...new Set([...config.imagePullSecrets, ...imagePullSecrets])];
        const annotations =
          name === config.pluginServiceAccount && annotated ? plugins.annotations : undefined;
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
    const requires = labels[BASELINE_POLICY_LABEL]
      ? BASELINE_POLICY_OBJECTS.map((o) => `${o.ref.kind}/${o.name}`)
      : [];
    const cloud =
      plugins.gcpServiceAccount && identity.pool && identity.namespace
        ? [
            workloadIdentityBinding(
              { pool: identity.pool, namespace: identity.namespace },
              home,
              config.pluginServiceAccount,
              plugins.gcpServiceAccount,
            ),
          ]
        : [];
    return {
      objects: [namespace, ...serviceAccounts, ...bindings, ...cloud],
      problems,
      requires,
      namespaceLabels,
    };
  },
});

/**
 * The namespace's labels from `labels` and `istioInjection`: the enforced ones, asserted with
 * the namespace, and the plan for the rest (defaults, set only where absent; `""`: removed).
 */
function kubeflowLabels(config: NamespaceConfig): {
  labels: Record<string, string>;
  namespaceLabels: NamespaceLabelPlan;
} {
  const all: Record<string, string> = { ...config.labels };
  if (config.istioInjection) all[ISTIO_INJECTION_LABEL] = 'enabled';
  const labels: Record<string, string> = {};
  const defaults: Record<string, string> = {};
  const remove: string[] = [];
  for (const [key, value] of Object.entries(all)) {
    if (value === '') remove.push(key);
    else if (config.enforcedLabels.includes(key)) labels[key] = value;
    else defaults[key] = value;
  }
  return { labels, namespaceLabels: { defaults, remove, enforced: [...config.enforcedLabels] } };
}
