#!/usr/bin/env node
// Packs every publishable package (packages/* and apps/* that are not private) with `pnpm pack`,
// which applies publishConfig and replaces workspace: and catalog: ranges, into one folder, and
// prints one tarball path a line. These are the release tarballs until a version is on npm:
// `npm install <tarball> …` with the tarball of every @kfx package it depends on.
//
//   node tooling/release/pack.mjs [--out DIR]     (default: dist-packs/ at the root)
//
// `npm run pack` builds first, then runs this; the consumer tests run it on built packages.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = parseArgs({ options: { out: { type: 'string' } } });
const out = resolve(values.out ?? join(root, 'dist-packs'));

const publishable = ['packages', 'apps'].flatMap((group) =>
  readdirSync(join(root, group))
    .sort()
    .map((entry) => join(root, group, entry))
    .filter((dir) => {
      try {
        return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).private !== true;
      } catch {
        return false;
      }
    }),
);

mkdirSync(out, { recursive: true });
// Tarballs of earlier runs (another version) would be installed by a `*.tgz` glob.
for (const old of readdirSync(out).filter((name) => name.endsWith('.tgz'))) {
  rmSync(join(out, old));
}
const pnpm = join(root, 'node_modules', '.bin', 'pnpm');
for (const dir of publishable) {
  const packed = spawnSync(pnpm, ['pack', '--pack-destination', out], {
    cwd: dir,
    encoding: 'utf8',
  });
  if (packed.status !== 0) {
    console.error(`pnpm pack in ${dir} failed:\n${packed.stderr}${packed.stdout}`);
    process.exit(1);
  }
}
for (const name of readdirSync(out).sort()) if (name.endsWith('.tgz')) console.log(join(out, name));
