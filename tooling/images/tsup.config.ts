import { kfxBuild } from '@kfx/tsup-config';

export default kfxBuild({ entry: ['src/index.ts', 'src/cli.ts'], bin: true, dts: true });
