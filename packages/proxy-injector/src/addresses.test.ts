import { describe, expect, it } from 'vitest';
import { firstHostAddress, parseCidr } from './addresses.js';

const first = (text: string) => {
  const cidr = parseCidr(text);
  if (!cidr) throw new Error(`${text} did not parse`);
  return firstHostAddress(cidr);
};

describe('CIDRs', () => {
  it('parses IPv4 and IPv6 ranges and rejects what is not one', () => {
    expect(parseCidr('10.96.0.0/12')).toEqual({ address: '10.96.0.0', prefix: 12, family: 4 });
    expect(parseCidr('fd00:10:96::/112')?.family).toBe(6);
    for (const bad of ['10.96.0.0', '10.96.0.0/33', '10.96.0/12', 'x/8', '::/129', '10.0.0.0/-1']) {
      expect(parseCidr(bad)).toBeUndefined();
    }
  });

  it('finds the first host address, where Kubernetes puts the kubernetes Service', () => {
    expect(first('10.96.0.0/12')).toBe('10.96.0.1');
    expect(first('10.100.7.9/16')).toBe('10.100.0.1');
    expect(first('172.20.0.0/16')).toBe('172.20.0.1');
    expect(first('fd00:10:96::/112')).toBe('fd00:10:96::1');
    expect(first('2001:db8:0:0:1::/64')).toBe('2001:db8::1');
    expect(first('::ffff:10.0.0.0/120')).toBe('::ffff:a00:1');
    expect(first('10.0.0.7/32')).toBe('10.0.0.7');
  });
});
