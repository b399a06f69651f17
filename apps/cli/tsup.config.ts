import { kfxBuild } from '@kfx/tsup-config';

// The kfx/cli image holds this bundle and no node_modules. The demo's development-only pieces
// (the embedded control plane) are loaded at run time instead. Split: each command group is a
// chunk of its own, loaded when the command line names it (src/program.ts).
export default kfxBuild({
  entry: ['src/main.ts'],
  bin: true,
  bundle: true,
  splitting: true,
  external: ['@kfx/testenv'],
});
