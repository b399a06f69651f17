import { kfxTest } from '@kfx/vitest-config';

// One control plane (with namespace deletion and garbage collection, and a kwok node for the
// webhook's Pods to be "ready" on) for every check's file, each in namespaces of its own.
export default kfxTest({
  controlPlane: { components: ['controller-manager', 'scheduler', 'kwok'], oldestMinor: false },
});
