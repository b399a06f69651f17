// The one tsup configuration factory: every package's tsup.config.ts is a single call to it,
// so that all of kfx builds the same way (ESM only, Node 22 target, types, source maps).
import { defineConfig } from 'tsup';

/** @param {import('./index.d.ts').KfxBuildOptions} [options] */
export function kfxBuild(options = {}) {
  const { entry = ['src/index.ts'], bin = false, bundle = false, dts = !bin } = options;
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
    // A self-contained bundle (for container images, which hold no node_modules) inlines every
    // dependency. Some are CommonJS that require Node's built-ins, which an ES module can only
    // do through createRequire.
    ...(bundle ? { noExternal: [/./] } : {}),
    // Binaries are started directly: give them a shebang.
    ...(bin || bundle
      ? {
          banner: {
            js: [
              ...(bin ? ['#!/usr/bin/env node'] : []),
              ...(bundle
                ? [
                    "import { createRequire as __kfxCreateRequire } from 'node:module';",
                    'const require = __kfxCreateRequire(import.meta.url);',
                  ]
                : []),
            ].join('\n'),
          },
        }
      : {}),
  });
}
