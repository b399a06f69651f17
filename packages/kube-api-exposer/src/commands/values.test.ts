import { describe, expect, it } from 'vitest';
import { goDurationSeconds, parseListen } from './values.js';

describe('parseListen', () => {
  it('reads ADDR:PORT, [v6]:PORT and :PORT', () => {
    expect(parseListen('0.0.0.0:8443')).toEqual({ host: '0.0.0.0', port: 8443 });
    expect(parseListen('[::]:8443')).toEqual({ host: '::', port: 8443 });
    expect(parseListen(':9090')).toEqual({ host: '0.0.0.0', port: 9090 });
    expect(parseListen('localhost:0')).toEqual({ host: 'localhost', port: 0 });
  });

  it('refuses what is not an address and a port', () => {
    for (const text of ['8443', '0.0.0.0', '0.0.0.0:99999', '::1:8443', '[not-v6]:1', 'a:b']) {
      expect(parseListen(text), text).toBeUndefined();
    }
  });
});

describe('goDurationSeconds', () => {
  it('reads cert-manager durations', () => {
    expect(goDurationSeconds('2160h')).toBe(2160 * 3600);
    expect(goDurationSeconds('1h30m')).toBe(5400);
    expect(goDurationSeconds('45s')).toBe(45);
  });
});
