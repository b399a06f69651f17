import { notebookPod } from '@kfx/testenv/bench';
import { describe, expect, it } from 'vitest';
import { cloneJson, sameJson } from './json-values.js';

describe('cloneJson', () => {
  it('copies deeply: changing the copy leaves the original alone', () => {
    const pod = notebookPod();
    const copy = cloneJson(pod);
    copy.spec?.containers[0]?.env?.push({ name: 'X', value: '1' });
    expect(copy).not.toEqual(pod);
    expect(pod).toEqual(notebookPod());
  });

  it('keeps a "__proto__" key from JSON as a key, without touching the prototype', () => {
    const parsed = JSON.parse('{"data":{"__proto__":{"polluted":true}}}') as { data: object };
    const copy = cloneJson(parsed);
    expect(Object.keys(copy.data)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(copy.data)).toBe(Object.prototype);
    expect((copy.data as { polluted?: boolean }).polluted).toBeUndefined();
  });
});

describe('sameJson', () => {
  it('reads values the way JSON.stringify writes them', () => {
    expect(sameJson({ a: 1 }, { a: 1, b: undefined, c: () => 1 })).toBe(true);
    expect(
      sameJson({ t: '2026-11-21T00:00:00.000Z' }, { t: new Date('2026-11-21T00:00:00Z') }),
    ).toBe(true);
    expect(sameJson({ a: [1, 2] }, { a: [1, 2] })).toBe(true);
  });

  it('notices any difference: a value, a missing or extra key, an array length', () => {
    expect(sameJson({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameJson({ a: 1, b: 2 }, { a: 1 })).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(sameJson([1, 2], [1, 2, 3])).toBe(false);
    expect(sameJson({ a: [] }, { a: {} })).toBe(false);
  });

  it('refuses what JSON cannot carry even when both sides hold it', () => {
    expect(sameJson({ a: 1n }, { a: 1n })).toBe(false);
    expect(sameJson({ a: Infinity }, { a: Infinity })).toBe(false);
  });
});
