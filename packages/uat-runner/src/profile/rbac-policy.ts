// What RBAC cannot say, said by a ValidatingAdmissionPolicy: RBAC cannot limit `create` to one
// name (the name is not known when it authorizes), nor a cluster-wide `create rolebindings` to
// one namespace. For requests of the runner's identity only (matchConditions on the user), the
// policy allows creating just the UAT Profile (its owner pinned, no plugins) and its namespace
// (no labels that switch Pod Security off), RoleBindings only in that namespace and only of the
// editor ClusterRole to its service accounts or of the runner's ClusterRole to the runner itself,
// Secrets only of type Opaque, and deleting a Profile or namespace only when the runner made it.
//
// RBAC's escalation check lets an identity bind any role whose rules it holds: its own
// cluster-wide ClusterRole, or a Role of the test namespace made of its namespaced rules. Bound to
// someone else, the first hands on `create rolebindings` and `bind` of the editor role, the second
// the run's Secrets; so the policy allows exactly two roleRefs rather than checking the subjects
// of two role names. A Secret of type kubernetes.io/service-account-token would have the token
// controller mint a lasting token of a service account there, which the runner could read.
import type {
  V1ValidatingAdmissionPolicy,
  V1ValidatingAdmissionPolicyBinding,
  V1Validation,
} from '@kubernetes/client-node';
import { LABELS, MANAGED_BY } from '../base/names.js';

export type RbacSubject =
  | { kind: 'ServiceAccount'; name: string; namespace: string }
  | { kind: 'User'; name: string }
  | { kind: 'Group'; name: string };

export interface PolicyInput {
  name: string;
  profile: string;
  owner: string;
  editorClusterRole: string;
  runnerRole: string;
  subject: RbacSubject;
  labels: Record<string, string>;
}

/** A CEL string literal (JSON's escapes are CEL's). */
const cel = (text: string): string => JSON.stringify(text);
const celList = (items: readonly string[]): string => `[${items.map(cel).join(', ')}]`;

const PROFILE_LABELS = [LABELS.managedBy, LABELS.runId];
const NAMESPACE_LABELS = [
  ...PROFILE_LABELS,
  'app.kubernetes.io/part-of',
  'kubernetes.io/metadata.name',
];

export function requesterIs(subject: RbacSubject): string {
  switch (subject.kind) {
    case 'ServiceAccount':
      return `request.userInfo.username == ${cel(`system:serviceaccount:${subject.namespace}:${subject.name}`)}`;
    case 'User':
      return `request.userInfo.username == ${cel(subject.name)}`;
    case 'Group':
      return `${cel(subject.name)} in request.userInfo.groups`;
  }
}

export function admissionPolicy(
  input: PolicyInput,
): [V1ValidatingAdmissionPolicy, V1ValidatingAdmissionPolicyBinding] {
  const { profile, owner, editorClusterRole: editor, runnerRole: runner } = input;
  const creating = (resource: string) =>
    `request.resource.resource != ${cel(resource)} || request.operation != "CREATE"`;
  const labelsWithin = (allowed: readonly string[]) =>
    `!has(object.metadata.labels) || object.metadata.labels.all(k, k in ${celList(allowed)})`;
  const firstLabelOutside = (allowed: readonly string[]) =>
    `object.metadata.labels.filter(k, !(k in ${celList(allowed)}))[0]`;
  const isRequester =
    '(s.kind == "User" && s.name == request.userInfo.username) || ' +
    '(s.kind == "ServiceAccount" && has(s.namespace) && ' +
    '"system:serviceaccount:" + s.namespace + ":" + s.name == request.userInfo.username)';
  const validations: V1Validation[] = [
    {
      expression: `${creating('profiles')} || object.metadata.name == ${cel(profile)}`,
      messageExpression: `${cel(`the UAT runner may create only the Profile ${profile}, not `)} + object.metadata.name`,
      message: `the UAT runner may create only the Profile ${profile}`,
      reason: 'Forbidden',
    },
    {
      expression:
        `${creating('profiles')} || (has(object.spec) && has(object.spec.owner) && ` +
        `has(object.spec.owner.kind) && object.spec.owner.kind == "User" && ` +
        `has(object.spec.owner.name) && object.spec.owner.name == ${cel(owner)})`,
      message: `Profile ${profile}: spec.owner must be User ${owner} (the owner \`kfx uat rbac --owner\` names)`,
      reason: 'Forbidden',
    },
    {
      expression: `${creating('profiles')} || !has(object.spec) || !has(object.spec.plugins) || size(object.spec.plugins) == 0`,
      message: `Profile ${profile}: spec.plugins must be empty (a plugin such as AwsIamForServiceAccount would hand the test namespace cloud rights)`,
      reason: 'Forbidden',
    },
    {
      expression: `${creating('profiles')} || ${labelsWithin(PROFILE_LABELS)}`,
      messageExpression: `${cel(`Profile ${profile}: label `)} + ${firstLabelOutside(PROFILE_LABELS)} + " is not allowed"`,
      message: `Profile ${profile}: only the labels ${PROFILE_LABELS.join(', ')} are allowed`,
      reason: 'Forbidden',
    },
    {
      expression: `${creating('namespaces')} || object.metadata.name == ${cel(profile)}`,
      messageExpression: `${cel(`the UAT runner may create only the namespace ${profile}, not `)} + object.metadata.name`,
      message: `the UAT runner may create only the namespace ${profile}`,
      reason: 'Forbidden',
    },
    {
      expression: `${creating('namespaces')} || ${labelsWithin(NAMESPACE_LABELS)}`,
      messageExpression: `${cel(`namespace ${profile}: label `)} + ${firstLabelOutside(NAMESPACE_LABELS)} + " is not allowed"`,
      message: `namespace ${profile}: only the labels ${NAMESPACE_LABELS.join(', ')} are allowed`,
      reason: 'Forbidden',
    },
    {
      expression:
        `request.operation != "DELETE" || (has(oldObject.metadata.labels) && ` +
        `${cel(LABELS.managedBy)} in oldObject.metadata.labels && ` +
        `oldObject.metadata.labels[${cel(LABELS.managedBy)}] == ${cel(MANAGED_BY)})`,
      messageExpression:
        `"the UAT runner may delete only a " + request.kind.kind + ${cel(` it made (labelled ${LABELS.managedBy}: ${MANAGED_BY}); `)} + ` +
        `request.kind.kind + " " + oldObject.metadata.name + " is not one"`,
      message: `the UAT runner may delete only what it made (labelled ${LABELS.managedBy}: ${MANAGED_BY})`,
      reason: 'Forbidden',
    },
    {
      expression: `${creating('rolebindings')} || request.namespace == ${cel(profile)}`,
      messageExpression: `${cel(`the UAT runner may create RoleBindings only in namespace ${profile}, not in `)} + request.namespace`,
      message: `the UAT runner may create RoleBindings only in namespace ${profile}`,
      reason: 'Forbidden',
    },
    {
      expression:
        `${creating('rolebindings')} || (object.roleRef.kind == "ClusterRole" && ` +
        `object.roleRef.name in ${celList([editor, runner])})`,
      messageExpression:
        `${cel(`the UAT runner may create RoleBindings only of the ClusterRoles ${editor} and ${runner}, not of the `)} + ` +
        `object.roleRef.kind + " " + object.roleRef.name`,
      message: `the UAT runner may create RoleBindings only of the ClusterRoles ${editor} and ${runner}`,
      reason: 'Forbidden',
    },
    {
      expression:
        `${creating('rolebindings')} || object.roleRef.name != ${cel(editor)} || !has(object.subjects) || ` +
        `object.subjects.all(s, s.kind == "ServiceAccount" && has(s.namespace) && s.namespace == ${cel(profile)})`,
      message: `the UAT runner may bind ${editor} only to service accounts of namespace ${profile}`,
      reason: 'Forbidden',
    },
    {
      expression:
        `${creating('rolebindings')} || object.roleRef.name != ${cel(runner)} || !has(object.subjects) || ` +
        `object.subjects.all(s, ${isRequester})`,
      message: `the UAT runner may bind ${runner} only to itself`,
      reason: 'Forbidden',
    },
    {
      expression: `${creating('secrets')} || !has(object.type) || object.type == "Opaque"`,
      messageExpression:
        `"the UAT runner may create only Secrets of type Opaque, not " + object.type + ` +
        cel(
          ' (a service-account token Secret would give it a lasting credential of that service account)',
        ),
      message: 'the UAT runner may create only Secrets of type Opaque',
      reason: 'Forbidden',
    },
  ];
  const policy: V1ValidatingAdmissionPolicy = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: input.name, labels: input.labels },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: ['kubeflow.org'],
            apiVersions: ['*'],
            resources: ['profiles'],
            operations: ['CREATE', 'DELETE'],
          },
          {
            apiGroups: [''],
            apiVersions: ['*'],
            resources: ['namespaces'],
            operations: ['CREATE', 'DELETE'],
          },
          { apiGroups: [''], apiVersions: ['*'], resources: ['secrets'], operations: ['CREATE'] },
          {
            apiGroups: ['rbac.authorization.k8s.io'],
            apiVersions: ['*'],
            resources: ['rolebindings'],
            operations: ['CREATE'],
          },
        ],
      },
      matchConditions: [{ name: 'the-uat-runner', expression: requesterIs(input.subject) }],
      validations,
    },
  };
  const binding: V1ValidatingAdmissionPolicyBinding = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: input.name, labels: input.labels },
    spec: { policyName: input.name, validationActions: ['Deny'] },
  };
  return [policy, binding];
}
