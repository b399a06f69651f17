import { describe, expect, it } from 'vitest';
import { checkPath, DEFAULT_ALLOWED_PREFIXES } from './path-allow-list.js';

const allowed = (p: string) => checkPath(p, DEFAULT_ALLOWED_PREFIXES).allowed;

describe('checkPath', () => {
  it('forwards the API groups, version and OpenAPI, with query strings', () => {
    expect(allowed('/api')).toBe(true);
    expect(allowed('/api/v1/namespaces/default/pods?watch=1')).toBe(true);
    expect(allowed('/apis/batch/v1/jobs')).toBe(true);
    expect(allowed('/version')).toBe(true);
    expect(allowed('/openapi/v3')).toBe(true);
  });

  it('refuses paths outside the list, including near misses on a prefix', () => {
    expect(allowed('/metrics')).toBe(false);
    expect(allowed('/apiextras')).toBe(false);
    expect(allowed('/')).toBe(false);
  });

  it('refuses traversal, plain or encoded', () => {
    expect(allowed('/api/../metrics')).toBe(false);
    expect(allowed('/api/%2e%2e/metrics')).toBe(false);
    expect(allowed('/api%2F..%2Fmetrics')).toBe(false);
  });

  it('says why a path was refused', () => {
    expect(checkPath('/logs', ['/api'])).toEqual({
      allowed: false,
      reason: 'only /api are exposed',
    });
  });
});
