import { kfxBuild } from '@kfx/tsup-config';
import type { Options } from 'tsup';

// The image holds this one file and no node_modules, so every dependency goes into the bundle,
// the workspace packages straight from their sources (no stale dist). Some dependencies (pino,
// prom-client) are CommonJS that require Node's built-ins, which an ES module can only do
// through createRequire.
const base = kfxBuild({ entry: ['src/main.ts'], bin: true }) as Options;

export default {
  ...base,
  noExternal: [/./],
  esbuildOptions(options) {
    options.conditions = ['@kfx/source'];
  },
  banner: {
    js: [
      '#!/usr/bin/env node',
      "import { createRequire as __kfxCreateRequire } from 'node:module';",
      'const require = __kfxCreateRequire(import.meta.url);',
    ].join('\n'),
  },
} satisfies Options;
