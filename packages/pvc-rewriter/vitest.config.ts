import { kfxTest } from '@kfx/vitest-config';

// One control plane for both integration files (each in namespaces of its own, its webhook
// registration scoped to them); controller-manager makes the StatefulSets' and ephemeral
// volumes' claims.
export default kfxTest({ controlPlane: { components: ['controller-manager'] } });
