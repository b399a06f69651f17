import { kfxBuild } from '@kfx/tsup-config';

// Not a bundle: the demo runs from a clone, where its dependencies are installed and built, and
// the kfx CLI loads it by name when `kfx demo` runs.
export default kfxBuild();
