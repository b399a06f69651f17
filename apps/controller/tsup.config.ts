import { kfxBuild } from '@kfx/tsup-config';

// The image holds this bundle and no node_modules, so every dependency goes into it.
export default kfxBuild({ entry: ['src/main.ts'], bin: true, bundle: true });
