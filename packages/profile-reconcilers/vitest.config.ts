import { kfxTest } from '@kfx/vitest-config';

// No shared control plane: the controller acts on every Profile of the cluster (no selector
// keeps it to one file's), and apiserver-restart restarts the API server; each integration file
// owns its plane (the reason is in its header).
export default kfxTest();
