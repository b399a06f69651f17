// Every migration guide is in the index, has a Check section with named blocks, and has a test
// that reads it; every block a test asks for exists. So a guide cannot quietly lose its check.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GUIDES_DIR, readGuide } from './guide.js';

const TESTS_DIR = fileURLToPath(new URL('./guides/', import.meta.url));
const guides = readdirSync(GUIDES_DIR)
  .filter((file) => file.startsWith('from-') && file.endsWith('.md'))
  .sort();
const index = readFileSync(`${GUIDES_DIR}README.md`, 'utf8');

describe('the migration guides', () => {
  it('are the seven the index lists', () => {
    expect(guides).toEqual([
      'from-interlink-nginx.md',
      'from-poddefault-proxy.md',
      'from-proxy-configmap.md',
      'from-scripted-uat-driver.md',
      'from-statcan-profiles-controller.md',
      'from-upstream-profile-controller.md',
      'from-vsphere-pvc-mutator.md',
    ]);
    for (const guide of guides) expect(index).toContain(`](${guide})`);
  });

  it.each(guides)('%s has a Check section, named blocks and a test that reads them', (file) => {
    const text = readFileSync(`${GUIDES_DIR}${file}`, 'utf8');
    expect(text).toMatch(/^## Check$/m);
    expect(text).toMatch(/^## Rolling out and back$/m);
    expect(text).toMatch(/^## What changes for users$/m);
    const guide = readGuide(file);
    expect(guide.blocks.size).toBeGreaterThan(0);

    const testFile = `${file.replace(/\.md$/, '')}.integration.test.ts`;
    const test = readFileSync(`${TESTS_DIR}${testFile}`, 'utf8');
    expect(test).toContain(`readGuide('${file}')`);
    const asked = [...test.matchAll(/guide\.(?:text|yaml)(?:<[^>]*>)?\('([^']+)'\)/g)].map(
      (match) => match[1] ?? '',
    );
    expect(asked.length).toBeGreaterThan(0);
    for (const name of asked)
      expect([...guide.blocks.keys()], `${testFile} asks for ${name}`).toContain(name);
    expect(text).toContain(`tooling/e2e/src/guides/${testFile}`);
  });
});
