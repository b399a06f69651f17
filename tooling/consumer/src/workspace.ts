// What the consumer tests install: the published @kfx packages of this repository and the peer
// ranges they declare (pnpm-workspace.yaml's `peers` catalog), with the lowest version of each.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export interface PublishedPackage {
  name: string;
  dir: string;
  /** What a project can import: the package's entry points as published (`@kfx/x`, `@kfx/x/y`). */
  entries: string[];
}

/** Every package under packages/ that is not private. */
export function publishedPackages(): PublishedPackage[] {
  const root = join(repoRoot, 'packages');
  return readdirSync(root)
    .sort()
    .map((entry) => {
      const dir = join(root, entry);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name: string;
        private?: boolean;
        publishConfig?: { exports?: Record<string, unknown> };
      };
      const entries = Object.keys(manifest.publishConfig?.exports ?? { '.': {} })
        .filter((key) => key !== './package.json')
        .map((key) => (key === '.' ? manifest.name : `${manifest.name}/${key.slice(2)}`));
      return { name: manifest.name, dir, entries, private: manifest.private === true };
    })
    .filter((found) => !found.private)
    .map(({ name, dir, entries }) => ({ name, dir, entries }));
}

/**
 * The pages of `docs/<package folder>/` (details moved out of a package README), whose examples
 * are held to the same checks as the README's.
 */
export function docsPages(pkg: PublishedPackage): string[] {
  const dir = join(repoRoot, 'docs', basename(pkg.dir));
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => join(dir, file));
}

interface Workspace {
  catalog?: Record<string, string>;
  catalogs?: { peers?: Record<string, string> };
}
const workspace = (): Workspace =>
  parse(readFileSync(join(repoRoot, 'pnpm-workspace.yaml'), 'utf8')) as Workspace;

/** The range of a dependency in the default catalog. */
export function catalogRange(name: string): string {
  const range = workspace().catalog?.[name];
  if (!range) throw new Error(`pnpm-workspace.yaml: no catalog entry for ${name}`);
  return range;
}

/** The peer ranges the packages publish. */
export function peerRanges(): Record<string, string> {
  const peers = workspace().catalogs?.peers;
  if (!peers) throw new Error('pnpm-workspace.yaml: catalogs.peers is missing');
  return peers;
}

/**
 * The lowest version a range allows: `^2.0.0` → `2.0.0`, `^1.4.0 || ^2.0.0` → `1.4.0`. Only the
 * forms kfx uses (caret or exact, joined by ||) are accepted, so a new form fails loudly here.
 */
export function lowestVersion(range: string): string {
  const versions = range.split('||').map((part) => {
    const match = /^\s*\^?(\d+)\.(\d+)\.(\d+)\s*$/.exec(part);
    if (!match) throw new Error(`peer range "${range}": "${part.trim()}" is not ^X.Y.Z or X.Y.Z`);
    return [Number(match[1]), Number(match[2]), Number(match[3])] as const;
  });
  versions.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  const [lowest] = versions;
  if (!lowest) throw new Error(`peer range "${range}" is empty`);
  return lowest.join('.');
}

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}
const manifestOf = (dir: string): Manifest =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** Every publishable package of packages/ and apps/ (the CLI), by name, with its manifest. */
function publishableManifests(): Map<string, Manifest> {
  const found = new Map<string, Manifest>();
  for (const group of ['packages', 'apps']) {
    for (const entry of readdirSync(join(repoRoot, group)).sort()) {
      const dir = join(repoRoot, group, entry);
      if (!existsSync(join(dir, 'package.json'))) continue;
      const manifest = manifestOf(dir);
      if (manifest.private !== true) found.set(manifest.name, manifest);
    }
  }
  return found;
}

/**
 * The publishable packages no registry holds yet: version 0.0.0 (changesets' first release
 * moves it). An install line for one of them can only name its tarball.
 */
export function unpublishedPackages(): Set<string> {
  return new Set(
    [...publishableManifests()]
      .filter(([, manifest]) => manifest.version === '0.0.0')
      .map(([name]) => name),
  );
}

/** Every @kfx package a package needs installed with it: its @kfx dependencies and theirs. */
export function kfxDependencies(name: string): string[] {
  const manifests = publishableManifests();
  const needed = new Set<string>();
  const visit = (current: string) => {
    const manifest = manifests.get(current);
    if (!manifest) throw new Error(`${current} is not a publishable package of this repository`);
    const direct = [
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ].filter((dependency) => dependency.startsWith('@kfx/'));
    for (const dependency of direct) {
      if (needed.has(dependency)) continue;
      needed.add(dependency);
      visit(dependency);
    }
  };
  visit(name);
  return [...needed].sort();
}

/** Every Markdown file of the repository (as git sees it) but changelogs and changesets. */
export function markdownFiles(): string[] {
  const listed = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '--', '*.md'],
    { cwd: repoRoot, encoding: 'utf8' },
  );
  return listed
    .split('\n')
    .filter((file) => file !== '' && basename(file) !== 'CHANGELOG.md')
    .filter((file) => !file.startsWith('.changeset/') && existsSync(join(repoRoot, file)))
    .sort();
}
