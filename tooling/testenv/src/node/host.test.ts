import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isStaticElf, NODE_PACKAGES } from './host.js';

describe('the host checks of the real node', () => {
  it('tells a dynamically linked program and a non-program from a static one', () => {
    expect(isStaticElf(process.execPath)).toBe(false); // Node.js is dynamically linked
    expect(isStaticElf(new URL(import.meta.url).pathname)).toBe(false);
    expect(isStaticElf('/does/not/exist')).toBe(false);
  });

  it('has the set-up install every Debian package the node needs', () => {
    const setup = readFileSync(new URL('../../../setup/run.mjs', import.meta.url), 'utf8');
    const listed = /const DEBIAN_PACKAGES = \[([^\]]*)\]/.exec(setup)?.[1] ?? '';
    for (const name of NODE_PACKAGES) expect(listed, name).toContain(`'${name}'`);
  });
});
