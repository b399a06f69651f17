import { kfxBuild } from '@kfx/tsup-config';

export default kfxBuild();
