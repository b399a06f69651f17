import { describe, expect, it } from 'vitest';
import { OptionsError } from '../options-error.js';
import { resolveCaps } from './serve-caps.js';
import { serve } from './serve.js';

describe('the caps of serve', () => {
  it('default to shares of maxConnections, at least 1', () => {
    expect(resolveCaps({ maxConnections: 500 })).toEqual({
      maxLongRunning: 300,
      maxLongRunningPerIdentity: 50,
      maxConnectionsPerSource: 250,
      maxConnectionsPerIdentity: 100,
      maxUnauthenticatedConnections: 100,
      maxUnauthenticatedConnectionsPerSource: 20,
    });
    expect(resolveCaps({ maxConnections: 2000, maxLongRunning: 100 })).toMatchObject({
      maxLongRunning: 100,
      maxLongRunningPerIdentity: 200,
    });
    expect(Object.values(resolveCaps({ maxConnections: 1 }))).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it('refuses a cap above the one it is a part of, naming both, before starting anything', async () => {
    const error = await serve({
      tlsCert: 'missing.crt',
      tlsKey: 'missing.key',
      maxConnections: 40,
      maxLongRunning: 50,
      maxUnauthenticatedConnectionsPerSource: 30,
      maxConnectionsPerIdentity: 0,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OptionsError);
    const lines = (error as OptionsError).describe((option) => option);
    expect(lines).toContain(
      'maxLongRunning: must be at most maxConnections (40): a higher cap could never be reached, got 50',
    );
    expect(lines).toContain(
      'maxUnauthenticatedConnectionsPerSource: must be at most maxUnauthenticatedConnections (8): a higher cap could never be reached, got 30',
    );
    expect(lines).toContain('maxConnectionsPerIdentity: expected at least 1, got 0');
  });
});
