#!/usr/bin/env node
// The published @kfx/cli is one bundle with the kfx libraries inlined (it has no runtime
// dependencies), so a fix in a library reaches `kfx` users only in a new CLI release. Changesets
// cannot see that (the libraries are the CLI's devDependencies), so this step, run by the
// `version` script before `changeset version`, adds a patch changeset for the CLI when the
// pending changesets release a library it bundles and none of them names the CLI already.
//
//   node tooling/release/cli-follows-bundle.mjs [--root DIR]
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const CLI = '@kfx/cli';
const CLI_DIR = join('apps', 'cli');
const OWN_CHANGESET = 'cli-bundles-new-releases.md';

/** The package names a changeset's front matter releases (`'@kfx/x': patch` lines). */
function releasedBy(text) {
  const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? '';
  return [...front.matchAll(/^\s*['"]?([^'":\s]+)['"]?\s*:\s*(major|minor|patch)\s*$/gm)].map(
    (match) => match[1],
  );
}

/** The workspace packages the CLI bundles: its workspace devDependencies that are published. */
function bundled(root) {
  const cli = JSON.parse(readFileSync(join(root, CLI_DIR, 'package.json'), 'utf8'));
  const names = Object.entries(cli.devDependencies ?? {})
    .filter(([, range]) => String(range).startsWith('workspace:'))
    .map(([name]) => name);
  const published = new Set();
  for (const folder of ['packages', 'apps']) {
    const base = join(root, folder);
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base)) {
      const manifest = join(base, entry, 'package.json');
      if (!existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
      if (!pkg.private) published.add(pkg.name);
    }
  }
  return names.filter((name) => published.has(name));
}

function main() {
  const { values } = parseArgs({
    options: {
      root: { type: 'string', default: join(dirname(fileURLToPath(import.meta.url)), '..', '..') },
    },
  });
  const dir = join(values.root, '.changeset');
  const released = new Set();
  for (const file of readdirSync(dir)) {
    if (!file.endsWith('.md') || file === 'README.md') continue;
    for (const name of releasedBy(readFileSync(join(dir, file), 'utf8'))) released.add(name);
  }
  if (released.has(CLI)) {
    console.log(`${CLI}: released by the pending changesets already`);
    return;
  }
  const inside = bundled(values.root).filter((name) => released.has(name));
  if (inside.length === 0) {
    console.log(`${CLI}: no library it bundles is released`);
    return;
  }
  const list = inside.map((name) => `\`${name}\``).join(', ');
  writeFileSync(
    join(dir, OWN_CHANGESET),
    `---\n'${CLI}': patch\n---\n\n\`kfx\` bundles the new releases of ${list}.\n`,
  );
  console.log(`${CLI}: patch, for the new releases of ${inside.join(', ')} it bundles`);
}

try {
  main();
} catch (error) {
  console.error(`cli-follows-bundle: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
