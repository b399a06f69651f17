import { kfxTest } from '@kfx/vitest-config';

// One control plane for the integration files that can share it (each in its own namespace);
// client, informer and leader-election restart the apiserver or time a Lease, so own theirs.
export default kfxTest({ controlPlane: {} });
