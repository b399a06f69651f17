import { kfxBuild } from '@kfx/tsup-config';

// The kfx/cli image holds this bundle and no node_modules. The demo's development-only pieces
// (the embedded control plane) are loaded at run time instead.
export default kfxBuild({
  entry: ['src/main.ts'],
  bin: true,
  bundle: true,
  external: ['@kfx/testenv'],
});
