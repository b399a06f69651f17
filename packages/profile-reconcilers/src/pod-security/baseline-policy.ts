// The ValidatingAdmissionPolicy (and its binding) that enforces Pod Security `baseline` in the
// profile namespaces where Pod Security Admission cannot: those with Istio sidecars injected
// without Istio CNI (baseline-checks.ts, istio-init.ts). The namespace reconciler labels such a
// namespace `kfx.dev/pod-security-baseline: enforce`, which the binding selects, and writes the
// Istio proxy images it allows on the namespace. The objects are static, so the controller's
// chart ships them as they are here; a library user applies `baselinePolicyObjects()` himself,
// and the controller reports a Profile whose namespace relies on a policy that is missing.
import type { KubeObject, ResourceRef } from '@kfx/kube-runtime/client';
import { BASELINE_CAPABILITIES, baselineChecks } from './baseline-checks.js';
import { PROXY_IMAGES_VARIABLE } from './istio-init.js';

export const BASELINE_POLICY_NAME = 'kfx-pod-security-baseline';
/** The namespace label the binding selects. */
export const BASELINE_POLICY_LABEL = 'kfx.dev/pod-security-baseline';
export const BASELINE_POLICY_LABEL_VALUE = 'enforce';

const GROUP = 'admissionregistration.k8s.io';

export const VALIDATING_ADMISSION_POLICIES: ResourceRef = {
  group: GROUP,
  version: 'v1',
  resource: 'validatingadmissionpolicies',
  kind: 'ValidatingAdmissionPolicy',
  namespaced: false,
};

export const VALIDATING_ADMISSION_POLICY_BINDINGS: ResourceRef = {
  group: GROUP,
  version: 'v1',
  resource: 'validatingadmissionpolicybindings',
  kind: 'ValidatingAdmissionPolicyBinding',
  namespaced: false,
};

const quoted = (values: readonly string[]) => `[${values.map((v) => `'${v}'`).join(', ')}]`;

/**
 * Pod updates are checked only when they change the spec (or add ephemeral containers), as Pod
 * Security Admission does: a Pod admitted before its namespace was labelled can still have its
 * labels, finalizers or status changed.
 */
const CHANGES_SPEC =
  "request.operation == 'CREATE' || request.subResource == 'ephemeralcontainers' || object.spec != oldObject.spec";

/** The policy and its binding, as the chart installs them. */
export function baselinePolicyObjects(): [KubeObject, KubeObject] {
  const policy = {
    apiVersion: `${GROUP}/v1`,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: BASELINE_POLICY_NAME },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: [''],
            apiVersions: ['v1'],
            operations: ['CREATE', 'UPDATE'],
            resources: ['pods', 'pods/ephemeralcontainers'],
          },
        ],
      },
      matchConditions: [{ name: 'changes-the-pod-spec', expression: CHANGES_SPEC }],
      variables: [
        { name: 'proxyImages', expression: PROXY_IMAGES_VARIABLE },
        { name: 'baselineCapabilities', expression: quoted(BASELINE_CAPABILITIES) },
      ],
      validations: baselineChecks().map((check) => ({
        expression: check.expression,
        message: `${check.message} (Pod Security baseline, enforced by ValidatingAdmissionPolicy ${BASELINE_POLICY_NAME})`,
        ...(check.messageExpression
          ? {
              messageExpression: `${check.messageExpression} + ' (Pod Security baseline, enforced by ValidatingAdmissionPolicy ${BASELINE_POLICY_NAME})'`,
            }
          : {}),
        reason: 'Forbidden',
      })),
    },
  };
  const binding = {
    apiVersion: `${GROUP}/v1`,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: BASELINE_POLICY_NAME },
    spec: {
      policyName: BASELINE_POLICY_NAME,
      validationActions: ['Deny'],
      matchResources: {
        namespaceSelector: {
          matchLabels: { [BASELINE_POLICY_LABEL]: BASELINE_POLICY_LABEL_VALUE },
        },
      },
    },
  };
  return [policy, binding];
}
