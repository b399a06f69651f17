import { kfxTest } from '@kfx/vitest-config';

// No shared control plane: the demo starts the one it shows.
export default kfxTest();
