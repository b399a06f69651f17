import { kfxTest } from '@kfx/vitest-config';

// No shared control plane: run restarts the API server, so it owns its plane, and rbac alone would
// gain nothing from one.
export default kfxTest();
