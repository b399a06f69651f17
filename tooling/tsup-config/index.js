// The one tsup configuration factory: every package's tsup.config.ts is a single call to it,
// so that all of kfx builds the same way (ESM only, Node 22 target, types, source maps).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
      // Strings, regular expressions and identifiers as \u escapes (asciiOnly does the comments).
      esbuild.charset = 'ascii';
    },
    onSuccess: async () => {
      asciiOnly('dist');
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
 * The Node.js version check. @kubernetes/client-node 2.x and undici need Node 22.19 or newer and
 * crash deep inside on older ones (undici reads zlib's zstd at load); kfx is built and tested on
 * 24, and `engines` is not checked at run time.
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

/**
 * The check as a module of its own, which every output file imports first. An ES module's imports
 * are evaluated before its body, so a check written inline would run only after the dependencies
 * had already crashed; the first import is evaluated before the others.
 */
const NODE_CHECK_FILE = 'node-check.js';
const nodeCheckImport = `import './${NODE_CHECK_FILE}';`;

/** Writes the check module next to every emitted .js file (entries may sit in sub-folders). */
function writeNodeCheck(dir, source) {
  const entries = readdirSync(dir, { withFileTypes: true });
  if (entries.some((entry) => entry.isFile() && entry.name.endsWith('.js'))) {
    writeFileSync(join(dir, NODE_CHECK_FILE), source);
  }
  for (const entry of entries) {
    if (entry.isDirectory()) writeNodeCheck(join(dir, entry.name), source);
  }
}

/**
 * Rewrites every .js file under `dir` in ASCII. V8 keeps a script's source in memory for as long
 * as the script lives (functions are compiled when first called), and a single character outside
 * Latin-1 makes the whole source a two-byte string: kfx-webhook's 3.6 MB bundle took 7.3 MB
 * because of a few dependency comments. esbuild already writes code in ASCII (`charset`); what the
 * tree-shaking pass (rollup) keeps verbatim is comments, where a `\uXXXX` escape is harmless.
 * @param {string} dir
 */
function asciiOnly(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      asciiOnly(path);
      continue;
    }
    if (!entry.name.endsWith('.js')) continue;
    const text = readFileSync(path, 'utf8');
    const ascii = text.replace(
      /[\u0080-\uffff]/g,
      (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    if (ascii !== text) writeFileSync(path, ascii);
  }
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
  const name = programName();
  const banner = [
    // Binaries are started directly: give them a shebang.
    ...(bin ? ['#!/usr/bin/env node'] : []),
    // A plain message instead of a crash deep in a dependency when the Node.js is too old: inline
    // in a bundle (it is one file, its dependencies inside it), else imported first.
    bundle ? nodeCheck(name) : nodeCheckImport,
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
    banner: { js: banner.join('\n') },
    ...(bundle
      ? {}
      : {
          onSuccess: async () => {
            const source = `// Stops on a Node.js older than kfx supports, with one line saying so.\n${nodeCheck(name)}\n`;
            writeNodeCheck('dist', source);
          },
        }),
  });
}
