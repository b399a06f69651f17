import { kfxTest } from '@kfx/vitest-config';

// The take-over of the upstream Kubeflow profile controller's state (its finalizer, both Profile
// versions, field ownership of its labels, the chart's admission policy) runs on the oldest
// supported Kubernetes too. Every file here owns its control plane.
export default kfxTest({
  oldestMinor: ['src/guides/from-upstream-profile-controller.integration.test.ts'],
});
