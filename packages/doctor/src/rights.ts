// What `kfx doctor` may do, as ClusterRole rules: the controller chart's `doctor.enabled`
// installs exactly these (a test compares them), and `diagnose` asks the API server for each
// before it starts, so that a missing right is named at once (AccessError) instead of a check
// failing half-way. Everything is read-only but `create` on Pods and claims, which RBAC cannot
// restrict to dry-runs: the chart's ValidatingAdmissionPolicy refuses the doctor's identity any
// create that is not one (docs/doctor/rights.md).

/** An rbac.authorization.k8s.io/v1 PolicyRule. */
export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[] | undefined;
}

export const DOCTOR_RULES: readonly PolicyRule[] = [
  { apiGroups: ['kubeflow.org'], resources: ['profiles'], verbs: ['get', 'list'] },
  {
    apiGroups: [''],
    resources: ['namespaces', 'nodes', 'services', 'resourcequotas', 'limitranges'],
    verbs: ['get', 'list'],
  },
  // The configuration files of kfx-webhook and kfx-controller, read by the names their
  // Deployments mount: never listed.
  { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
  // Server-side dry-runs only (the probe Pod and the ReadWriteMany claim).
  { apiGroups: [''], resources: ['pods', 'persistentvolumeclaims'], verbs: ['create'] },
  { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list'] },
  { apiGroups: ['apps'], resources: ['deployments', 'daemonsets'], verbs: ['get', 'list'] },
  {
    apiGroups: ['admissionregistration.k8s.io'],
    resources: [
      'mutatingwebhookconfigurations',
      'validatingadmissionpolicies',
      'validatingadmissionpolicybindings',
    ],
    verbs: ['get', 'list'],
  },
  { apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings'], verbs: ['list'] },
  { apiGroups: ['storage.k8s.io'], resources: ['storageclasses'], verbs: ['get', 'list'] },
  { apiGroups: ['networking.k8s.io'], resources: ['servicecidrs'], verbs: ['list'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get'] },
  // The exposer's certificates (cert-manager), for their days left.
  { apiGroups: ['cert-manager.io'], resources: ['certificates'], verbs: ['get', 'list'] },
];

/**
 * The one right with names: GET through the API server's service proxy, on the webhook's HTTPS
 * port (the certificate it serves) and the controller's metrics port (its capacity). Names are
 * `scheme:service:port` as the proxy's URL has them; without it, those two parts are skipped
 * with a note naming it.
 */
export const SERVICE_PROXY_RULE = (names: readonly string[]): PolicyRule => ({
  apiGroups: [''],
  resources: ['services/proxy'],
  verbs: ['get'],
  resourceNames: [...names],
});

/** The service-proxy names of a default install of both charts in `kfx-system`. */
export const DEFAULT_SERVICE_PROXY_NAMES: readonly string[] = [
  'https:kfx-webhook:443',
  'http:kfx-controller-metrics:8080',
];

/** One right: a verb on a resource of a group (`''`: core). */
export interface Right {
  verb: string;
  group: string;
  resource: string;
}

/** Every verb on every resource of `rules`, one right each. */
export function rightsOf(rules: readonly PolicyRule[]): Right[] {
  return rules.flatMap((rule) =>
    rule.apiGroups.flatMap((group) =>
      rule.resources.flatMap((resource) => rule.verbs.map((verb) => ({ verb, group, resource }))),
    ),
  );
}

/** `list profiles.kubeflow.org`, `create pods`. */
export function describeRight(right: Right): string {
  return `${right.verb} ${right.group === '' ? right.resource : `${right.resource}.${right.group}`}`;
}
