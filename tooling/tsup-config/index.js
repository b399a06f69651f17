// The one tsup configuration factory: every package's tsup.config.ts is a single call to it,
// so that all of kfx builds the same way (ESM only, Node 22 target, types, source maps).
import { defineConfig } from 'tsup';

/** @param {import('./index.d.ts').KfxBuildOptions} [options] */
export function kfxBuild(options = {}) {
  const { entry = ['src/index.ts'], bin = false, dts = !bin } = options;
  return defineConfig({
    entry,
    format: ['esm'],
    platform: 'node',
    target: 'node22',
    dts,
    sourcemap: true,
    clean: true,
    splitting: false,
    treeshake: true,
    // Binaries are started directly: give them a shebang.
    ...(bin ? { banner: { js: '#!/usr/bin/env node' } } : {}),
  });
}
