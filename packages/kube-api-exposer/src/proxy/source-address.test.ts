import { describe, expect, it } from 'vitest';
import { sourceOf } from './source-address.js';

describe('sourceOf', () => {
  it('counts IPv4 by address and IPv6 by its /64', () => {
    expect(sourceOf('203.0.113.7')).toBe('203.0.113.7');
    expect(sourceOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(sourceOf('2001:db8:0:1::17')).toBe('2001:db8:0:1::/64');
    expect(sourceOf('2001:0db8:0000:0001:ffff:1:2:3')).toBe('2001:db8:0:1::/64');
    expect(sourceOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(sourceOf('::1')).toBe('0:0:0:0::/64');
    expect(sourceOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(sourceOf('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(sourceOf(undefined)).toBe('unknown');
  });
});
