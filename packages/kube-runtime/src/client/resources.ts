// Where a kind of object lives in the API: group, version, plural resource name and scope.
// Well-known refs are constants so that controllers need no discovery round trip for them;
// anything else comes from `client.resolve(apiVersion, kind)`.
export interface ResourceRef {
  /** API group; `''` for the core group (`v1`). */
  group: string;
  version: string;
  /** Plural, lower-case resource name as it appears in URLs, e.g. `resourcequotas`. */
  resource: string;
  kind: string;
  namespaced: boolean;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean | undefined;
  blockOwnerDeletion?: boolean | undefined;
}

export interface ManagedFieldsEntry {
  manager?: string | undefined;
  operation?: string | undefined;
  apiVersion?: string | undefined;
  subresource?: string | undefined;
  fieldsType?: string | undefined;
  fieldsV1?: unknown;
  time?: unknown;
}

/**
 * Object metadata as JSON has it. Timestamps are `unknown` because client-node's models
 * declare them `Date` while the wire (and this library) keeps RFC 3339 strings.
 */
export interface ObjectMeta {
  name?: string | undefined;
  generateName?: string | undefined;
  namespace?: string | undefined;
  uid?: string | undefined;
  resourceVersion?: string | undefined;
  generation?: number | undefined;
  labels?: Record<string, string> | undefined;
  annotations?: Record<string, string> | undefined;
  ownerReferences?: OwnerReference[] | undefined;
  finalizers?: string[] | undefined;
  managedFields?: ManagedFieldsEntry[] | undefined;
  creationTimestamp?: unknown;
  deletionTimestamp?: unknown;
  deletionGracePeriodSeconds?: number | undefined;
}

/** The least every Kubernetes object has; client-node's model types (V1Pod, …) fit it. */
export interface KubeObject {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata?: ObjectMeta | undefined;
}

/** What the API returns for a list: the items and the list's resourceVersion. */
export interface KubeList<T> {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion?: string; continue?: string };
  items: T[];
}

const ref = (
  group: string,
  version: string,
  resource: string,
  kind: string,
  namespaced: boolean,
): ResourceRef => ({ group, version, resource, kind, namespaced });

export const resources = {
  configMaps: ref('', 'v1', 'configmaps', 'ConfigMap', true),
  events: ref('', 'v1', 'events', 'Event', true),
  limitRanges: ref('', 'v1', 'limitranges', 'LimitRange', true),
  namespaces: ref('', 'v1', 'namespaces', 'Namespace', false),
  nodes: ref('', 'v1', 'nodes', 'Node', false),
  persistentVolumeClaims: ref('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true),
  pods: ref('', 'v1', 'pods', 'Pod', true),
  resourceQuotas: ref('', 'v1', 'resourcequotas', 'ResourceQuota', true),
  secrets: ref('', 'v1', 'secrets', 'Secret', true),
  serviceAccounts: ref('', 'v1', 'serviceaccounts', 'ServiceAccount', true),
  services: ref('', 'v1', 'services', 'Service', true),
  deployments: ref('apps', 'v1', 'deployments', 'Deployment', true),
  jobs: ref('batch', 'v1', 'jobs', 'Job', true),
  leases: ref('coordination.k8s.io', 'v1', 'leases', 'Lease', true),
  networkPolicies: ref('networking.k8s.io', 'v1', 'networkpolicies', 'NetworkPolicy', true),
  roles: ref('rbac.authorization.k8s.io', 'v1', 'roles', 'Role', true),
  roleBindings: ref('rbac.authorization.k8s.io', 'v1', 'rolebindings', 'RoleBinding', true),
  clusterRoles: ref('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', false),
  clusterRoleBindings: ref(
    'rbac.authorization.k8s.io',
    'v1',
    'clusterrolebindings',
    'ClusterRoleBinding',
    false,
  ),
  storageClasses: ref('storage.k8s.io', 'v1', 'storageclasses', 'StorageClass', false),
  customResourceDefinitions: ref(
    'apiextensions.k8s.io',
    'v1',
    'customresourcedefinitions',
    'CustomResourceDefinition',
    false,
  ),
  mutatingWebhookConfigurations: ref(
    'admissionregistration.k8s.io',
    'v1',
    'mutatingwebhookconfigurations',
    'MutatingWebhookConfiguration',
    false,
  ),
  profiles: ref('kubeflow.org', 'v1', 'profiles', 'Profile', false),
} as const satisfies Record<string, ResourceRef>;

/** `v1` for the core group, `group/version` otherwise. */
export function apiVersionOf(ref: ResourceRef): string {
  return ref.group === '' ? ref.version : `${ref.group}/${ref.version}`;
}

/** Splits an apiVersion into group and version (`v1` → core group). */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return { group: '', version: apiVersion };
  return { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export interface PathOptions {
  namespace?: string | undefined;
  name?: string | undefined;
  subresource?: string | undefined;
}

/** The URL path of a collection, an object or a subresource. */
export function resourcePath(ref: ResourceRef, options: PathOptions = {}): string {
  const { namespace, name, subresource } = options;
  const base = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  if (namespace !== undefined && namespace !== '' && !ref.namespaced) {
    throw new Error(
      `${ref.resource} are cluster-scoped: no namespace may be given (got ${JSON.stringify(namespace)})`,
    );
  }
  if (ref.namespaced && !namespace && name !== undefined) {
    throw new Error(`${ref.resource} ${JSON.stringify(name)}: a namespace is required`);
  }
  if (name === '') throw new Error(`${ref.resource}: the object name is empty`);
  if (subresource !== undefined && name === undefined) {
    throw new Error(`${ref.resource}: subresource ${subresource} needs an object name`);
  }
  let path = base;
  if (ref.namespaced && namespace) path += `/namespaces/${encodeURIComponent(namespace)}`;
  path += `/${ref.resource}`;
  if (name !== undefined) path += `/${encodeURIComponent(name)}`;
  if (subresource !== undefined) path += `/${subresource}`;
  return path;
}
