// The least privilege `kfx uat run` needs, as a ClusterRole and its binding: exactly the verbs
// the runner uses (a Profile and its namespace are cluster-scoped, and the test namespace is not
// known in advance, hence cluster-wide). The integration test runs a whole suite as a user that
// holds nothing else, so the list cannot silently fall behind the code.
import type { V1ClusterRole, V1ClusterRoleBinding, RbacV1Subject } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { RUN_DEFAULTS } from './run-options.js';
import { UatInputError } from './outcome.js';

export type RbacSubject =
  | { kind: 'ServiceAccount'; name: string; namespace: string }
  | { kind: 'User'; name: string }
  | { kind: 'Group'; name: string };

export interface RbacOptions {
  /** Name of the ClusterRole and ClusterRoleBinding. Default `kfx-uat-runner`. */
  name?: string | undefined;
  /** Who runs `kfx uat run`. Default: ServiceAccount `kfx-uat` in `kfx-system`. */
  subject?: RbacSubject | undefined;
  /** The role the runner binds the suite's service account to (`--editor-cluster-role`). */
  editorClusterRole?: string | undefined;
}

export const DEFAULT_RBAC_SUBJECT: RbacSubject = {
  kind: 'ServiceAccount',
  name: 'kfx-uat',
  namespace: 'kfx-system',
};

export function rbacObjects(options: RbacOptions = {}): [V1ClusterRole, V1ClusterRoleBinding] {
  const name = options.name ?? 'kfx-uat-runner';
  const subject = options.subject ?? DEFAULT_RBAC_SUBJECT;
  const editor = options.editorClusterRole ?? RUN_DEFAULTS.editorClusterRole;
  const labels = { 'app.kubernetes.io/name': 'kfx-uat', 'app.kubernetes.io/component': 'rbac' };
  const role: V1ClusterRole = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name, labels },
    rules: [
      { apiGroups: ['kubeflow.org'], resources: ['profiles'], verbs: ['get', 'create', 'delete'] },
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'create', 'delete'] },
      { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get', 'create'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create', 'delete'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
      { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
      { apiGroups: [''], resources: ['events'], verbs: ['list'] },
      {
        apiGroups: ['batch'],
        resources: ['jobs'],
        verbs: ['get', 'list', 'watch', 'create', 'delete'],
      },
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings'], verbs: ['create'] },
      // Binding the suite's service account to the editor role without holding that role.
      {
        apiGroups: ['rbac.authorization.k8s.io'],
        resources: ['clusterroles'],
        resourceNames: [editor],
        verbs: ['bind'],
      },
    ],
  };
  const rbacSubject: RbacV1Subject =
    subject.kind === 'ServiceAccount'
      ? { kind: 'ServiceAccount', name: subject.name, namespace: subject.namespace }
      : { kind: subject.kind, name: subject.name, apiGroup: 'rbac.authorization.k8s.io' };
  const binding: V1ClusterRoleBinding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name, labels },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects: [rbacSubject],
  };
  return [role, binding];
}

/** The two objects as a YAML stream, ready for `kubectl apply -f -`. */
export function rbacYaml(options: RbacOptions = {}): string {
  return rbacObjects(options)
    .map((object) => stringify(object, { lineWidth: 0 }))
    .join('---\n');
}

/** `NAMESPACE:NAME` (kubectl's --serviceaccount form) or `NAMESPACE/NAME`. */
export function parseServiceAccount(text: string): RbacSubject {
  const match = /^([a-z0-9-]+)[:/]([a-z0-9.-]+)$/.exec(text.trim());
  if (!match?.[1] || !match[2]) {
    throw new UatInputError(`--service-account: expected NAMESPACE:NAME, found "${text}"`);
  }
  return { kind: 'ServiceAccount', namespace: match[1], name: match[2] };
}
