import { kfxTest } from '@kfx/vitest-config';

// One control plane for the integration files that can share it: profile-selector, converge,
// secrets, kubeflow-parity, config-change, pod-security and ceilings run their controllers with a profileSelector of
// their own (their Profiles carry the file's label, and are named after its namespace), so no
// file reconciles another's Profiles; controller-manager collects what a deleted Profile owned.
// apiserver-restart (restarts the API server) and namespace-takeover (protects, adopts and
// refuses namespaces of fixed names, cluster-wide) own their planes (the reason is in each
// header).
// converge, kubeflow-parity and namespace-takeover (every kind of object the reconcilers apply,
// the Profile CRD's status, garbage collection) and pod-security (the admission policy's CEL
// against each minor's Pod schema) run on the oldest supported Kubernetes too.
export default kfxTest({
  controlPlane: { components: ['controller-manager'] },
  oldestMinor: [
    'src/controller/converge.integration.test.ts',
    'src/controller/kubeflow-parity.integration.test.ts',
    'src/controller/namespace-takeover.integration.test.ts',
    'src/controller/pod-security.integration.test.ts',
  ],
});
