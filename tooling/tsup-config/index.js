// The one tsup configuration factory: every package's tsup.config.ts is a single call to it,
// so that all of kfx builds the same way (ESM only, Node 22 target, types, source maps).
import { readFileSync } from 'node:fs';
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

/**
 * The name a binary goes by: its key in the package's `bin`, else the package name. tsup runs
 * the config in the package's folder.
 */
function programName() {
  try {
    const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
    const bins = typeof manifest.bin === 'object' && manifest.bin ? Object.keys(manifest.bin) : [];
    return bins[0] ?? manifest.name ?? 'this program';
  } catch {
    return 'this program';
  }
}

/**
 * Runs before anything else in a binary. @kubernetes/client-node 2.x and undici need Node 22.19
 * or newer and crash deep inside on older ones; kfx is built and tested on 24.
 */
function nodeCheck(name) {
  const message = `${name} needs Node.js 22.19 or newer (24 LTS recommended); this is Node.js `;
  return `{
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 22 || (major === 22 && minor < 19)) {
    process.stderr.write(${JSON.stringify(message)} + process.versions.node + '.\\n');
    process.exit(1);
  }
}`;
}

/** @param {import('./index.d.ts').KfxBuildOptions} [options] */
export function kfxBuild(options = {}) {
  const {
    entry = ['src/index.ts'],
    bin = false,
    bundle = false,
    external = [],
    dts = !bin,
    splitting = false,
  } = options;
  const banner = [
    // Binaries are started directly: give them a shebang, and a plain message instead of a crash
    // deep in a dependency when the node on PATH is too old (engines is not checked at run time).
    ...(bin ? ['#!/usr/bin/env node', nodeCheck(programName())] : []),
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
    splitting,
    treeshake: true,
    ...(bundle ? bundleOptions(external) : {}),
    ...(banner.length > 0 ? { banner: { js: banner.join('\n') } } : {}),
  });
}
