// docs/doctor/checks.md lists every finding the checks can make: a code added without its line
// there fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const checks = new URL('./checks/', import.meta.url);
const page = readFileSync(new URL('../../../docs/doctor/checks.md', import.meta.url), 'utf8');

/** Every finding code in the checks' sources: literal codes and `prefix.${code}` helpers' calls. */
function sourceCodes(): string[] {
  const codes = new Set<string>();
  for (const file of readdirSync(checks).filter(
    (name) => name.endsWith('.ts') && !name.includes('.test.'),
  )) {
    const text = readFileSync(new URL(file, checks), 'utf8');
    for (const match of text.matchAll(/code: ['`]([a-z-]+\.[a-z-]+)['`]/g))
      codes.add(match[1] ?? '');
    for (const match of text.matchAll(
      /['`]((?:no-proxy|rwx-claims|profiles|controller|exposer|kubernetes)\.[a-z-]+)['`]/g,
    )) {
      codes.add(match[1] ?? '');
    }
    const prefix = /code: `([a-z-]+)\.\$\{code\}`/.exec(text)?.[1];
    if (prefix) {
      for (const match of text.matchAll(/finding\(\s*'([a-z-]+)'/g))
        codes.add(`${prefix}.${match[1] ?? ''}`);
    }
  }
  return [...codes].sort();
}

describe('docs/doctor/checks.md', () => {
  it('has a line for every finding code', () => {
    const codes = sourceCodes();
    expect(codes.length).toBeGreaterThan(40);
    expect(codes.filter((code) => !page.includes(`\`${code}\``))).toEqual([]);
  });
});
