import { kfxTest } from '@kfx/vitest-config';

// One control plane for uat-s3 and webhook-certificate, each in namespaces of its own (uat-s3's
// runs make Profiles named after its namespace). preview's --discover reads every Node of the
// cluster, and uat applies the cluster-wide RBAC and admission policy `kfx uat rbac` prints: both
// own their planes (the reason is in each header).
// preview --discover (whose service range is a guess before Kubernetes 1.33) runs on the oldest
// supported Kubernetes too, on a plane of its own: no shared plane of that minor.
export default kfxTest({
  controlPlane: { components: ['controller-manager', 'scheduler', 'kwok'], oldestMinor: false },
  oldestMinor: ['src/commands/preview.integration.test.ts'],
});
