import { describe, expect, it } from 'vitest';
import { goDurationSeconds } from './values.js';

describe('goDurationSeconds', () => {
  it('reads cert-manager durations', () => {
    expect(goDurationSeconds('2160h')).toBe(2160 * 3600);
    expect(goDurationSeconds('1h30m')).toBe(5400);
    expect(goDurationSeconds('45s')).toBe(45);
  });
});
