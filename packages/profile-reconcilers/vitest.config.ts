import { kfxTest } from '@kfx/vitest-config';

// One control plane for the integration files that can share it: profile-selector runs its
// controllers with profileSelectors that keep them to its own Profiles; controller-manager
// collects what a deleted Profile owned. The other files still own their planes (the reason is
// in each header).
export default kfxTest({ controlPlane: { components: ['controller-manager'] } });
