import { kfxBuild } from '@kfx/tsup-config';

// The kfx/cli image holds this bundle and no node_modules. The demo (@kfx/demo, which starts an
// embedded control plane) is loaded by name at run time instead: a clone of the repository has
// it, an installed kfx does not (src/commands/demo.ts). Split: each command group is a chunk of
// its own, loaded when the command line names it (src/program.ts).
export default kfxBuild({
  entry: ['src/main.ts'],
  bin: true,
  bundle: true,
  splitting: true,
  external: ['@kfx/demo'],
});
