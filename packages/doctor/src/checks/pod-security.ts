// Part of check `profiles`: Pod Security against the Istio mode. Istio's sidecar mode without
// Istio CNI injects `istio-init`, which adds NET_ADMIN and NET_RAW: Pod Security Admission at
// `baseline` (or `restricted`) refuses every such Pod. kfx-controller's namespace reconciler
// enforces baseline there with its ValidatingAdmissionPolicy instead (exempting exactly
// istio-init), which must then be installed.
import { BASELINE_POLICY_LABEL, BASELINE_POLICY_NAME } from '@kfx/profile-reconcilers';
import { objectName, type Finding } from '../finding.js';
import type { Cluster } from '../cluster.js';
import { controllerConfig, kfxControllers } from '../kfx-controller.js';
import { REFS, type Namespace } from '../objects.js';

const ENFORCE = 'pod-security.kubernetes.io/enforce';

/** Whether Istio injects sidecars into the namespace's Pods (not ambient mode). */
function sidecarMode(namespace: Namespace): boolean {
  const labels = namespace.metadata?.labels ?? {};
  if (labels['istio.io/dataplane-mode'] === 'ambient') return false;
  return labels['istio-injection'] === 'enabled' || labels['istio.io/rev'] !== undefined;
}

/** Findings for one namespace (pure: the unit tests call it). */
export function podSecurityFindings(
  namespace: Namespace,
  istioCni: boolean,
  policyInstalled: boolean,
  /** Whether a running kfx-controller release has the namespace reconciler, which labels it. */
  labellerRuns = true,
): Finding[] {
  const name = namespace.metadata?.name ?? '';
  const labels = namespace.metadata?.labels ?? {};
  const object = objectName('Namespace', name);
  const findings: Finding[] = [];
  const level = labels[ENFORCE];
  if (sidecarMode(namespace) && !istioCni && (level === 'baseline' || level === 'restricted')) {
    findings.push({
      check: 'profiles',
      code: 'profiles.pod-security-istio',
      severity: 'error',
      object,
      message: `Pod Security enforces ${level} on Istio sidecars without Istio CNI: istio-init adds NET_ADMIN and NET_RAW, so every Pod with a sidecar is refused`,
      fix: `install Istio CNI, or let kfx-controller's namespace reconciler enforce baseline with its policy: kubectl label namespace ${name} ${ENFORCE}- ${BASELINE_POLICY_LABEL}=enforce`,
    });
  }
  if (labels[BASELINE_POLICY_LABEL] !== undefined && !policyInstalled) {
    // With the namespace reconciler running, the policy it relies on is missing: broken now.
    // Without it, the label is left from a release that ran it: nobody claims to enforce.
    findings.push(
      labellerRuns
        ? {
            check: 'profiles',
            code: 'profiles.baseline-policy-missing',
            severity: 'error',
            object,
            message: `labelled ${BASELINE_POLICY_LABEL} but the ValidatingAdmissionPolicy ${BASELINE_POLICY_NAME} or its binding is missing: nothing enforces Pod Security here`,
            fix: `install ${BASELINE_POLICY_NAME} and its binding: the controller chart does with the namespace reconciler (podSecurityBaselinePolicy.install), or apply baselinePolicyObjects() of @kfx/profile-reconcilers`,
          }
        : {
            check: 'profiles',
            code: 'profiles.baseline-label-left',
            severity: 'warning',
            object,
            message: `labelled ${BASELINE_POLICY_LABEL} by a namespace reconciler no kfx-controller runs now, and ${BASELINE_POLICY_NAME} is not installed: Pod Security only audits and warns here`,
            fix: `kubectl label namespace ${name} ${BASELINE_POLICY_LABEL}- (or run the namespace reconciler again, with its policy)`,
          },
    );
  }
  return findings;
}

export async function podSecurityCheckFindings(
  cluster: Cluster,
  profileNamespaces: readonly string[],
): Promise<Finding[]> {
  const [namespaces, daemonSets, policies, bindings, deployments] = await Promise.all([
    cluster.namespaces(),
    cluster.list(REFS.daemonSets),
    cluster.list(REFS.validatingAdmissionPolicies),
    cluster.list(REFS.validatingAdmissionPolicyBindings),
    cluster.deployments(),
  ]);
  const configs = await Promise.all(
    kfxControllers(deployments).map((each) => controllerConfig(cluster, each)),
  );
  const labellerRuns = configs.some((config) => {
    const settings = config.reconcilers?.namespace;
    return settings !== undefined && settings !== false;
  });
  const istioCni = daemonSets.some(
    (daemonSet) =>
      daemonSet.metadata?.name === 'istio-cni-node' ||
      daemonSet.metadata?.labels?.['k8s-app'] === 'istio-cni-node',
  );
  const policyInstalled =
    policies.some((policy) => policy.metadata?.name === BASELINE_POLICY_NAME) &&
    bindings.some(
      (binding) =>
        (binding as { spec?: { policyName?: string } }).spec?.policyName === BASELINE_POLICY_NAME,
    );
  return profileNamespaces.flatMap((name) => {
    const namespace = namespaces.get(name);
    return namespace ? podSecurityFindings(namespace, istioCni, policyInstalled, labellerRuns) : [];
  });
}
