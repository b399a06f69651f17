import { kfxBuild } from '@kfx/tsup-config';

export default kfxBuild({ entry: ['src/index.ts', 'src/serving.ts', 'src/exit.ts'] });
