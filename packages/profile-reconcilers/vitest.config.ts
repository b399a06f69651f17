import { kfxTest } from '@kfx/vitest-config';

// One control plane for the integration files that can share it: profile-selector, converge,
// secrets, kubeflow-parity, kubeflow-contracts, upstream-takeover, config-change, pod-security
// and ceilings run their controllers with a profileSelector of their own (their Profiles carry
// the file's label, and are named after its namespace), so no file reconciles another's
// Profiles; controller-manager collects what a deleted Profile owned.
// apiserver-restart (restarts the API server) and namespace-takeover (protects, adopts and
// refuses namespaces of fixed names, cluster-wide) own their planes (the reason is in each
// header).
// converge, kubeflow-parity and namespace-takeover (every kind of object the reconcilers apply,
// the Profile CRD's status, garbage collection), pod-security (the admission policy's CEL
// against each minor's Pod schema), and the contracts with Kubeflow's components and the
// take-over of the upstream controller's state (kubeflow-contracts, upstream-takeover: field
// ownership, finalizers, both Profile versions, a CRD's CEL rules) run on the oldest supported
// Kubernetes too.
export default kfxTest({
  controlPlane: { components: ['controller-manager'] },
  oldestMinor: [
    'src/controller/converge.integration.test.ts',
    'src/controller/kubeflow-parity.integration.test.ts',
    'src/controller/kubeflow-contracts.integration.test.ts',
    'src/controller/upstream-takeover.integration.test.ts',
    'src/controller/namespace-takeover.integration.test.ts',
    'src/controller/pod-security.integration.test.ts',
  ],
});
