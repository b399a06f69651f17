import { describe, expect, it } from 'vitest';
import { escapePointerToken, jsonPointer } from './json-pointer.js';

describe('jsonPointer', () => {
  it('escapes the slash of an annotation key so the patch targets one key', () => {
    expect(jsonPointer(['metadata', 'annotations', 'proxy-injector.kfx.dev/inject'])).toBe(
      '/metadata/annotations/proxy-injector.kfx.dev~1inject',
    );
  });

  it('escapes ~ before / so that "~1" in a key is not read back as "/"', () => {
    expect(escapePointerToken('a~1/b')).toBe('a~01~1b');
  });

  it('renders array indexes as tokens', () => {
    expect(jsonPointer(['spec', 'containers', 0, 'env', '-'])).toBe('/spec/containers/0/env/-');
  });
});
