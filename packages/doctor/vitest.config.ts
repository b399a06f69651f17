import { kfxTest } from '@kfx/vitest-config';

// One control plane (namespace deletion, ServiceAccounts, and a kwok node for Pods to be
// "ready" on) for every check's file, each in namespaces of its own. kubernetes.integration
// owns a plane: it runs on the oldest supported minor too, which the shared plane is not.
export default kfxTest({
  controlPlane: { components: ['controller-manager', 'scheduler', 'kwok'], oldestMinor: false },
  oldestMinor: ['src/checks/kubernetes.integration.test.ts'],
});
