import { describe, expect, it } from 'vitest';
import {
  isLabelKey,
  isLabelValue,
  labelSelectorQuery,
  matchesLabelSelector,
} from './label-selector.js';

describe('label selectors', () => {
  const labels = { team: 'a', tier: 'gold' };

  it('requires every matchLabels entry and every expression', () => {
    expect(matchesLabelSelector({}, labels)).toBe(true);
    expect(matchesLabelSelector({ matchLabels: { team: 'a' } }, labels)).toBe(true);
    expect(matchesLabelSelector({ matchLabels: { team: 'a', tier: 'silver' } }, labels)).toBe(
      false,
    );
    const selector = {
      matchLabels: { team: 'a' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['gold', 'silver'] },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    };
    expect(matchesLabelSelector(selector, labels)).toBe(true);
    expect(matchesLabelSelector(selector, { ...labels, legacy: '' })).toBe(false);
  });

  it('treats a missing label as not in any set, and Exists as presence', () => {
    expect(
      matchesLabelSelector(
        { matchExpressions: [{ key: 'x', operator: 'NotIn', values: ['1'] }] },
        labels,
      ),
    ).toBe(true);
    expect(
      matchesLabelSelector(
        { matchExpressions: [{ key: 'x', operator: 'In', values: ['1'] }] },
        labels,
      ),
    ).toBe(false);
    expect(
      matchesLabelSelector({ matchExpressions: [{ key: 'team', operator: 'Exists' }] }, labels),
    ).toBe(true);
    expect(
      matchesLabelSelector({ matchExpressions: [{ key: 'team', operator: 'Sometimes' }] }, labels),
    ).toBe(false);
  });

  it('prints in the API query syntax, nothing for an empty selector', () => {
    expect(
      labelSelectorQuery({
        matchLabels: { team: 'a' },
        matchExpressions: [
          { key: 'tier', operator: 'NotIn', values: ['bronze'] },
          { key: 'gpu', operator: 'Exists' },
          { key: 'legacy', operator: 'DoesNotExist' },
        ],
      }),
    ).toBe('team=a,tier notin (bronze),gpu,!legacy');
    expect(labelSelectorQuery({})).toBe('');
  });

  it('checks label keys and values as the apiserver does', () => {
    for (const key of ['team', 'example.com/tier', 'a.b-c/x_y.z', 'A1'])
      expect(isLabelKey(key), key).toBe(true);
    for (const key of ['', '/x', 'Example.com/x', 'x/', '-x', 'a'.repeat(64), 'a/b/c'])
      expect(isLabelKey(key), key).toBe(false);
    for (const value of ['', 'gold', 'a-b_c.d', 'a'.repeat(63)])
      expect(isLabelValue(value), value).toBe(true);
    for (const value of ['-a', 'a-', 'a b', 'a'.repeat(64), 'a/b'])
      expect(isLabelValue(value), value).toBe(false);
  });
});
