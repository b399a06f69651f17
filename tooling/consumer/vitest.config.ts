import { kfxTest } from '@kfx/vitest-config';

export default kfxTest();
