import { describe, expect, it } from 'vitest';
import { backoffDelay, KeyedBackoff, parseRetryAfter, sleep } from './backoff.js';

describe('backoff', () => {
  it('doubles from the base and stops at the cap', () => {
    const options = { baseMs: 5, maxMs: 60_000 };
    expect([0, 1, 2, 3].map((n) => backoffDelay(n, options))).toEqual([5, 10, 20, 40]);
    expect(backoffDelay(30, options)).toBe(60_000);
    expect(backoffDelay(10_000, options)).toBe(60_000);
  });

  it('spreads delays by the jitter fraction', () => {
    const delays = Array.from({ length: 200 }, () =>
      backoffDelay(0, { baseMs: 1000, maxMs: 1000, jitter: 0.2 }),
    );
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(800);
    expect(Math.max(...delays)).toBeLessThanOrEqual(1200);
    expect(new Set(delays).size).toBeGreaterThan(1);
  });

  it('counts failures per key and forgets them on success', () => {
    const backoff = new KeyedBackoff<string>({ baseMs: 5, maxMs: 1000 });
    expect([backoff.next('a'), backoff.next('a'), backoff.next('a')]).toEqual([5, 10, 20]);
    expect(backoff.next('b')).toBe(5);
    expect(backoff.failures('a')).toBe(3);
    backoff.forget('a');
    expect(backoff.next('a')).toBe(5);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter(['2', '9'])).toBe(2000);
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('')).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});

describe('sleep', () => {
  it('rejects with the abort reason', async () => {
    const controller = new AbortController();
    const sleeping = sleep(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(sleeping).rejects.toThrow('stop');
  });
});
