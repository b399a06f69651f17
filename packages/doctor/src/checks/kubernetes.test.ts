// The minors and the features the doctor names are the README's: its "Supported Kubernetes"
// range and table.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MINOR_FEATURES, SUPPORTED_MINORS } from './kubernetes.js';

const readme = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');

describe("the doctor's Kubernetes range", () => {
  it("is the README's", () => {
    expect(readme).toContain(
      `kfx supports Kubernetes **1.${SUPPORTED_MINORS.oldest} to 1.${SUPPORTED_MINORS.newest}**`,
    );
  });

  it("names each feature of the README's table with the minor it came with", () => {
    const section = readme.slice(readme.indexOf('## Supported Kubernetes'));
    const rows = [...section.matchAll(/^\| (.+?)\s+\| (1\.\d+)\s+\|/gm)].map((m) => [m[1], m[2]]);
    expect(rows.length).toBeGreaterThan(0);
    for (const [what, since] of rows) {
      const feature = MINOR_FEATURES.find((each) => `1.${each.since}` === since);
      expect(feature, `${what ?? ''} (${since ?? ''})`).toBeDefined();
      expect(what?.replaceAll('`', '')).toBe(feature?.what);
    }
  });
});
