// What the consumer tests install: the published @kfx packages of this repository and the peer
// ranges they declare (pnpm-workspace.yaml's `peers` catalog), with the lowest version of each.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export interface PublishedPackage {
  name: string;
  dir: string;
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
      };
      return { name: manifest.name, dir, private: manifest.private === true };
    })
    .filter((found) => !found.private)
    .map(({ name, dir }) => ({ name, dir }));
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
