// The README lists every public name of each entry point (its "Every public name" section);
// this keeps the list true when an entry point gains or loses a name. The entry points only
// re-export, so their names are read from their `export { … } from` lines.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ENTRIES = {
  client: 'client/index.ts',
  informer: 'informer/index.ts',
  controller: 'controller/index.ts',
  serving: 'serving/index.ts',
  exit: 'exit.ts',
} as const;

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

/** The names an entry point exports, types included, sorted. */
function exported(file: string): string[] {
  const names: string[] = [];
  for (const match of read(file).matchAll(/export\s+(?:type\s+)?\{([^}]*)\}\s+from/g)) {
    for (const spec of (match[1] ?? '').split(',')) {
      const name = spec
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .at(-1);
      if (name) names.push(name);
    }
  }
  return names.sort();
}

/** The names the README lists for `@kfx/kube-runtime/<entry>`, sorted. */
function listed(entry: string): string[] {
  const readme = read('../README.md');
  const line = readme.split('\n').find((l) => l.startsWith(`- \`@kfx/kube-runtime/${entry}\`:`));
  return [...(line ?? '').slice(line?.indexOf(':') ?? 0).matchAll(/`([^`]+)`/g)]
    .map((m) => m[1] ?? '')
    .sort();
}

describe("the README's list of public names", () => {
  for (const [entry, file] of Object.entries(ENTRIES)) {
    it(`names exactly what @kfx/kube-runtime/${entry} exports`, () => {
      expect(listed(entry)).toEqual(exported(file));
    });
  }
});
