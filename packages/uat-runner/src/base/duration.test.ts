import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration.js';

describe('parseDuration', () => {
  it.each([
    ['90', 90_000],
    ['90s', 90_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['250ms', 250],
    [' 2m30s ', 150_000],
  ])('reads %j', (text, ms) => {
    expect(parseDuration(text, '--timeout')).toBe(ms);
  });

  it.each(['', '5 minutes', 'm5', '5m garbage', '-5s'])('names the flag for %j', (text) => {
    expect(() => parseDuration(text, '--timeout')).toThrow(/^--timeout: ".*" is not a duration/);
  });
});

describe('formatDuration', () => {
  it.each([
    [12.4, '12ms'],
    [400, '0.4s'],
    [3000, '3s'],
    [12_400, '12s'],
    [125_000, '2m05s'],
    [300_000, '5m'],
    [3_600_000, '1h'],
    [3_720_000, '1h02m'],
  ])('shows %d ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
