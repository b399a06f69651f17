import { describe, expect, it } from 'vitest';
import { KubeApiError } from './errors.js';
import { retryDelay } from './retry-policy.js';

const answer = (status: number, retryAfterMs?: number) =>
  new KubeApiError({
    method: 'X',
    path: '/api/v1/pods',
    status,
    reason: 'R',
    message: 'm',
    retryAfterMs,
  });
const noAnswer = (code: string) =>
  new KubeApiError({
    method: 'X',
    path: '/api/v1/pods',
    status: 0,
    reason: 'ConnectionFailed',
    message: 'm',
    code,
  });

describe('retry policy', () => {
  it('retries reads on connection errors, 5xx and 429', () => {
    expect(retryDelay('GET', noAnswer('ECONNRESET'), 0)).toBeGreaterThan(0);
    expect(retryDelay('GET', answer(503), 0)).toBeGreaterThan(0);
    expect(retryDelay('GET', answer(429), 0)).toBeGreaterThan(0);
    expect(retryDelay('GET', answer(404), 0)).toBeUndefined();
    expect(retryDelay('GET', answer(403), 0)).toBeUndefined();
  });

  it('retries writes only when the server cannot have acted', () => {
    expect(retryDelay('POST', answer(429), 0)).toBeGreaterThan(0);
    expect(retryDelay('PATCH', noAnswer('ECONNREFUSED'), 0)).toBeGreaterThan(0);
    expect(retryDelay('POST', noAnswer('ECONNRESET'), 0)).toBeUndefined();
    expect(retryDelay('PUT', answer(500), 0)).toBeUndefined();
    expect(retryDelay('DELETE', answer(503), 0)).toBeUndefined();
  });

  it('waits as long as Retry-After says, up to a minute', () => {
    expect(retryDelay('POST', answer(429, 7000), 0)).toBe(7000);
    expect(retryDelay('GET', answer(503, 2000), 0)).toBe(2000);
    expect(retryDelay('GET', answer(429, 3_600_000), 0)).toBe(60_000);
  });

  it('gives up after the configured retries', () => {
    expect(retryDelay('GET', answer(503), 2, { retries: 2 })).toBeUndefined();
    expect(retryDelay('GET', answer(503), 1, { retries: 2 })).toBeGreaterThan(0);
    expect(retryDelay('GET', new Error('not an API error'), 0)).toBeUndefined();
  });
});
