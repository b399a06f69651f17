import { describe, expect, it } from 'vitest';
import { parseQuantity, quantitiesEqual } from './quantity.js';

describe('quantities', () => {
  it.each([
    ['1000m', '1'],
    ['1', 1],
    ['1Gi', '1073741824'],
    ['1Gi', '1024Mi'],
    ['0.5', '500m'],
    ['1e3', '1k'],
    ['1E3', '1000'],
    ['1.5Ki', '1536'],
    ['368G', '368000M'],
    ['100T', '100e12'],
    ['2', '2.0'],
    ['.5', '500m'],
    ['1M', '1000k'],
  ])('%s equals %s', (a, b) => {
    expect(quantitiesEqual(a, b)).toBe(true);
  });

  it.each([
    ['1', '2'],
    ['1Gi', '1G'],
    ['1m', '1M'],
    ['100m', '1'],
    ['-1', '1'],
  ])('%s differs from %s', (a, b) => {
    expect(quantitiesEqual(a, b)).toBe(false);
  });

  it('rejects what is not a quantity', () => {
    for (const text of ['lots', '', '1Gib', '1.2.3', 'Gi', '1e', '1Ki5', '1e99999']) {
      expect(parseQuantity(text)).toBeUndefined();
    }
    expect(quantitiesEqual('lots', 'lots')).toBe(false);
    expect(parseQuantity(Number.NaN)).toBeUndefined();
  });
});
