// The one tsup configuration factory: every package's tsup.config.ts is a single call to it,
// so that all of kfx builds the same way (ESM only, Node 22 target, types, source maps).
import { defineConfig } from 'tsup';

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Options for a self-contained bundle (container images hold no node_modules): every dependency
 * is inlined except `external`; workspace packages come from their sources (the `@kfx/source`
 * condition), so a bundle never picks up a stale dist/.
 * @param {string[]} external
 */
function bundleOptions(external) {
  const keptOut = external.map(escapeRegExp).join('|');
  return {
    noExternal: [keptOut ? new RegExp(`^(?!(?:${keptOut})(?:/|$))`) : /./],
    external,
    esbuildOptions(esbuild) {
      esbuild.conditions = ['@kfx/source'];
    },
  };
}

/** @param {import('./index.d.ts').KfxBuildOptions} [options] */
export function kfxBuild(options = {}) {
  const {
    entry = ['src/index.ts'],
    bin = false,
    bundle = false,
    external = [],
    dts = !bin,
  } = options;
  const banner = [
    // Binaries are started directly: give them a shebang.
    ...(bin ? ['#!/usr/bin/env node'] : []),
    // Bundled CommonJS dependencies (pino, prom-client) require Node's built-ins, which an ES
    // module can only do through createRequire.
    ...(bundle
      ? [
          "import { createRequire as __kfxCreateRequire } from 'node:module';",
          'const require = __kfxCreateRequire(import.meta.url);',
        ]
      : []),
  ];
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
    ...(bundle ? bundleOptions(external) : {}),
    ...(banner.length > 0 ? { banner: { js: banner.join('\n') } } : {}),
  });
}
