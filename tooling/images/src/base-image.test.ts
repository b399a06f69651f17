import { describe, expect, it } from 'vitest';
import { sharedLibraries } from './base-image.js';

describe('sharedLibraries', () => {
  it('lists the absolute paths of the libraries the Node binary loads, the C library and loader among them', () => {
    const libraries = sharedLibraries(process.execPath);
    expect(libraries.every((path) => path.startsWith('/'))).toBe(true);
    expect(libraries.some((path) => path.endsWith('/libc.so.6'))).toBe(true);
    expect(libraries.some((path) => /ld-linux.*\.so/.test(path))).toBe(true);
  });
});
