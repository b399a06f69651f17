import { kfxTest } from '@kfx/vitest-config';

// No shared control plane: preview's --discover reads every Node of the cluster, so it owns its
// plane, and uat alone would gain nothing from one.
// preview --discover (whose service range is a guess before Kubernetes 1.33) runs on the oldest
// supported Kubernetes too.
export default kfxTest({ oldestMinor: ['src/commands/preview.integration.test.ts'] });
