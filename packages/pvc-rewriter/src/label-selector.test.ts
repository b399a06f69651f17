import { describe, expect, it } from 'vitest';
import { formatSelector, matchesSelector } from './label-selector.js';

describe('label selectors', () => {
  const labels = { team: 'a', tier: 'gold' };

  it('requires every matchLabels entry and every expression', () => {
    expect(matchesSelector({}, labels)).toBe(true);
    expect(matchesSelector({ matchLabels: { team: 'a' } }, labels)).toBe(true);
    expect(matchesSelector({ matchLabels: { team: 'a', tier: 'silver' } }, labels)).toBe(false);
    const selector = {
      matchLabels: { team: 'a' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['gold', 'silver'] },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    };
    expect(matchesSelector(selector, labels)).toBe(true);
    expect(matchesSelector(selector, { ...labels, legacy: '' })).toBe(false);
  });

  it('treats a missing label as not in any set, and Exists as presence', () => {
    expect(
      matchesSelector(
        { matchExpressions: [{ key: 'x', operator: 'NotIn', values: ['1'] }] },
        labels,
      ),
    ).toBe(true);
    expect(
      matchesSelector({ matchExpressions: [{ key: 'x', operator: 'In', values: ['1'] }] }, labels),
    ).toBe(false);
    expect(
      matchesSelector({ matchExpressions: [{ key: 'team', operator: 'Exists' }] }, labels),
    ).toBe(true);
    expect(
      matchesSelector({ matchExpressions: [{ key: 'team', operator: 'Sometimes' }] }, labels),
    ).toBe(false);
  });

  it('prints in kubectl syntax', () => {
    expect(
      formatSelector({
        matchLabels: { team: 'a' },
        matchExpressions: [
          { key: 'tier', operator: 'NotIn', values: ['bronze'] },
          { key: 'gpu', operator: 'Exists' },
          { key: 'legacy', operator: 'DoesNotExist' },
        ],
      }),
    ).toBe('team=a,tier notin (bronze),gpu,!legacy');
  });
});
