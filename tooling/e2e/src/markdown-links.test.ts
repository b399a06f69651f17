// Every relative link of the READMEs (the root's and each package's) and of the pages in docs/
// points to a file or folder that exists, and a `#anchor` into a Markdown file to one of its
// headings: so moving a section to docs/ cannot leave a link behind that goes nowhere.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anchorsOf, relativeLinks } from './markdown-links.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function markdownUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

const files = [
  join(ROOT, 'README.md'),
  ...['apps', 'packages', 'tooling'].flatMap((group) =>
    readdirSync(join(ROOT, group))
      .map((name) => join(ROOT, group, name, 'README.md'))
      .filter((path) => existsSync(path)),
  ),
  ...markdownUnder(join(ROOT, 'docs')),
].sort();

const anchorCache = new Map<string, Set<string>>();
function anchors(path: string): Set<string> {
  let found = anchorCache.get(path);
  if (!found) {
    found = anchorsOf(readFileSync(path, 'utf8'));
    anchorCache.set(path, found);
  }
  return found;
}

describe('relative links in the READMEs and docs/', () => {
  it('reads the READMEs of every group and the pages of docs/', () => {
    const names = files.map((file) => relative(ROOT, file));
    expect(names).toContain('README.md');
    expect(names).toContain('packages/kube-runtime/README.md');
    expect(names).toContain('docs/migration/README.md');
  });

  for (const file of files) {
    it(`${relative(ROOT, file)}: every relative link resolves`, () => {
      const broken: string[] = [];
      for (const link of relativeLinks(readFileSync(file, 'utf8'))) {
        const target = link.path === '' ? file : resolve(dirname(file), link.path);
        if (!existsSync(target)) {
          broken.push(`line ${link.line}: ${link.target} (no such file)`);
          continue;
        }
        if (
          link.anchor !== undefined &&
          target.endsWith('.md') &&
          statSync(target).isFile() &&
          !anchors(target).has(link.anchor)
        ) {
          broken.push(`line ${link.line}: ${link.target} (no heading #${link.anchor})`);
        }
      }
      expect(broken).toEqual([]);
    });
  }
});

describe('link parsing', () => {
  it('finds relative links outside code, with their anchors', () => {
    const text = [
      'See [a](../a/README.md#the-api), [b](b.md) and [site](https://example.com).',
      '`[not](a-link.md)`',
      '```md',
      '[in](code.md)',
      '```',
      '[here](#usage) ![img](./x.png "title")',
    ].join('\n');
    expect(relativeLinks(text)).toEqual([
      { line: 1, target: '../a/README.md#the-api', path: '../a/README.md', anchor: 'the-api' },
      { line: 1, target: 'b.md', path: 'b.md', anchor: undefined },
      { line: 6, target: '#usage', path: '', anchor: 'usage' },
      { line: 6, target: './x.png', path: './x.png', anchor: undefined },
    ]);
  });

  it('makes anchors as GitHub does', () => {
    const text = [
      '# @kfx/pvc-rewriter',
      '## `<unset>`, `<default>` and the DefaultStorageClass admission plugin',
      '### Server-side apply that skips: `applyObject(client, desired, options)`',
      '## Tests',
      '## Tests',
      '```sh',
      '# not a heading',
      '```',
    ].join('\n');
    expect([...anchorsOf(text)]).toEqual([
      'kfxpvc-rewriter',
      'unset-default-and-the-defaultstorageclass-admission-plugin',
      'server-side-apply-that-skips-applyobjectclient-desired-options',
      'tests',
      'tests-1',
    ]);
  });
});
