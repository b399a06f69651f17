import { kfxTest } from '@kfx/vitest-config';

// No shared control plane: preview's --discover reads every Node of the cluster, so it owns its
// plane, and uat alone would gain nothing from one.
export default kfxTest();
