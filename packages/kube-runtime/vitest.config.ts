import { kfxTest } from '@kfx/vitest-config';

// One control plane for the integration files that can share it (each in its own namespace,
// leader-election's Leases too); client and informer restart the apiserver, so own theirs (the
// reason is in each header).
export default kfxTest({ controlPlane: {} });
