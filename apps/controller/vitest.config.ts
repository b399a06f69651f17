import { kfxTest } from '@kfx/vitest-config';

// No shared control plane: kfx-controller acts on every Profile of the cluster (no selector keeps
// it to one file's), and leader-election times Leases; each integration file owns its plane (the
// reason is in its header).
export default kfxTest();
