// The least privilege `kfx uat run` (and `kfx uat clean`) needs, as objects for `kubectl apply`.
//
// For a Profile run, the only cluster-wide rights are on the UAT Profile and its namespace (by
// name where RBAC can say it), creating RoleBindings, and `bind` on exactly two roles; an
// admission policy (rbac-policy.ts) says what RBAC cannot: which Profile, which namespace, which
// RoleBindings. Everything else the runner does happens in the test namespace, under a second
// ClusterRole it binds to itself there once the namespace exists (it goes with the namespace).
// For a run in an existing namespace (`-n`), a Role and RoleBinding in it are all there is.
import type {
  RbacV1Subject,
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1Role,
  V1RoleBinding,
} from '@kubernetes/client-node';
import type { KubeObject } from '@kfx/kube-runtime/client';
import { stringify } from 'yaml';
import { DEFAULT_RBAC_NAME, isDnsLabel, runnerRoleName } from '../base/names.js';
import { UatInputError } from '../base/outcome.js';
import { admissionPolicy, type RbacSubject } from './rbac-policy.js';
import { NAMESPACED_RULES } from './rbac-rules.js';
import { RUN_DEFAULTS } from '../run-options.js';

export type { RbacSubject } from './rbac-policy.js';

export interface RbacOptions {
  /** Name of the objects. Default `kfx-uat-runner`. */
  name?: string | undefined;
  /** Who runs `kfx uat run`. Default: ServiceAccount `kfx-uat` in `kfx-system`. */
  subject?: RbacSubject | undefined;
  /** The one Profile (and namespace) the runner may create and delete. Default `test-kubeflow`. */
  profile?: string | undefined;
  /** The only owner a Profile the runner creates may have. Default `test-kubeflow@email.com`. */
  owner?: string | undefined;
  /** Rights in this existing namespace only (for `kfx uat run -n`), nothing cluster-wide. */
  namespace?: string | undefined;
  /** The role the runner binds the suite's service account to (`--editor-cluster-role`). */
  editorClusterRole?: string | undefined;
}

const DEFAULT_RBAC_SUBJECT: RbacSubject = {
  kind: 'ServiceAccount',
  name: 'kfx-uat',
  namespace: 'kfx-system',
};

const RBAC_GROUP = 'rbac.authorization.k8s.io';

export function rbacObjects(options: RbacOptions = {}): KubeObject[] {
  const name = options.name ?? DEFAULT_RBAC_NAME;
  const subject = options.subject ?? DEFAULT_RBAC_SUBJECT;
  const labels = { 'app.kubernetes.io/name': 'kfx-uat', 'app.kubernetes.io/component': 'rbac' };
  const subjects = [rbacSubject(subject)];
  if (options.namespace !== undefined) {
    if (options.profile !== undefined) {
      throw new UatInputError('--profile and -n/--namespace exclude each other');
    }
    const namespace = checkedName(options.namespace, '-n/--namespace');
    const role: V1Role = {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'Role',
      metadata: { name, namespace, labels },
      rules: [...NAMESPACED_RULES],
    };
    const binding: V1RoleBinding = {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'RoleBinding',
      metadata: { name, namespace, labels },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name },
      subjects,
    };
    return [role, binding];
  }
  const profile = checkedName(options.profile ?? RUN_DEFAULTS.profile, '--profile');
  const editor = options.editorClusterRole ?? RUN_DEFAULTS.editorClusterRole;
  const runner = runnerRoleName(name);
  const role: V1ClusterRole = {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRole',
    metadata: { name, labels },
    rules: [
      // RBAC cannot name what is created: the admission policy pins the names.
      { apiGroups: ['kubeflow.org'], resources: ['profiles'], verbs: ['create'] },
      {
        apiGroups: ['kubeflow.org'],
        resources: ['profiles'],
        resourceNames: [profile],
        verbs: ['get', 'delete'],
      },
      { apiGroups: [''], resources: ['namespaces'], verbs: ['create'] },
      {
        apiGroups: [''],
        resources: ['namespaces'],
        resourceNames: [profile],
        verbs: ['get', 'delete'],
      },
      // Only in the test namespace (the policy), of the two roles below and no other.
      { apiGroups: [RBAC_GROUP], resources: ['rolebindings'], verbs: ['create'] },
      {
        apiGroups: [RBAC_GROUP],
        resources: ['clusterroles'],
        resourceNames: [editor, runner],
        verbs: ['bind'],
      },
    ],
  };
  const binding: V1ClusterRoleBinding = {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name, labels },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name },
    subjects,
  };
  const inNamespace: V1ClusterRole = {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRole',
    metadata: { name: runner, labels },
    rules: [...NAMESPACED_RULES],
  };
  const policy = admissionPolicy({
    name,
    profile,
    owner: options.owner ?? RUN_DEFAULTS.owner,
    editorClusterRole: editor,
    runnerRole: runner,
    subject,
    labels,
  });
  return [role, binding, inNamespace, ...policy];
}

// The one thing that does not work on every Kubernetes kfx may meet, said where it is applied.
const PROFILE_RUN_HEADER = [
  '# For `kfx uat run` with a Profile. Needs Kubernetes 1.30 or later: the ValidatingAdmissionPolicy',
  '# below is what keeps the cluster-wide rights of these roles to one Profile. Where the cluster',
  '# refuses it, delete the other objects (kubectl delete -f) and use `kfx uat rbac -n NAMESPACE`;',
  '# `kfx uat run` refuses Profile runs there.',
  '',
].join('\n');

/** The objects as a YAML stream, ready for `kubectl apply -f -`. */
export function rbacYaml(options: RbacOptions = {}): string {
  const header = options.namespace === undefined ? PROFILE_RUN_HEADER : '';
  return (
    header +
    rbacObjects(options)
      .map((object) => stringify(object, { lineWidth: 0 }))
      .join('---\n')
  );
}

function rbacSubject(subject: RbacSubject): RbacV1Subject {
  return subject.kind === 'ServiceAccount'
    ? { kind: 'ServiceAccount', name: subject.name, namespace: subject.namespace }
    : { kind: subject.kind, name: subject.name, apiGroup: RBAC_GROUP };
}

function checkedName(name: string, flag: string): string {
  if (!isDnsLabel(name)) {
    throw new UatInputError(
      `${flag}: "${name}" is not a valid name (lower-case letters, digits and "-", at most 63)`,
    );
  }
  return name;
}

/** `NAMESPACE:NAME` (kubectl's --serviceaccount form) or `NAMESPACE/NAME`. */
export function parseServiceAccount(text: string): RbacSubject {
  const match = /^([a-z0-9-]+)[:/]([a-z0-9.-]+)$/.exec(text.trim());
  if (!match?.[1] || !match[2]) {
    throw new UatInputError(`--service-account: expected NAMESPACE:NAME, found "${text}"`);
  }
  return { kind: 'ServiceAccount', namespace: match[1], name: match[2] };
}
