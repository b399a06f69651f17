import { kfxBuild } from '@kfx/tsup-config';

export default kfxBuild({ entry: ['src/main.ts'], bin: true });
