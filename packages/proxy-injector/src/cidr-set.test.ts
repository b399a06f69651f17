import { describe, expect, it } from 'vitest';
import { cidrCovers, collapseCidrs, coveringCidrs } from './cidr-set.js';

describe('collapsing address ranges', () => {
  it('joins sibling node pod ranges into their parent, and drops duplicates and contained ranges', () => {
    const nodes = Array.from({ length: 4 }, (_, i) => `10.244.${i}.0/24`);
    expect(collapseCidrs([...nodes, '10.244.1.0/24', '10.244.2.128/25'])).toEqual([
      '10.244.0.0/22',
    ]);
  });

  it('never covers an address the ranges did not', () => {
    // 0, 1 and 2 of /24: 0+1 join into a /23, 2 stays (its sibling 3 is missing).
    expect(collapseCidrs(['10.244.2.0/24', '10.244.0.0/24', '10.244.1.0/24'])).toEqual([
      '10.244.0.0/23',
      '10.244.2.0/24',
    ]);
    // 1 and 2 are adjacent but not halves of one parent.
    expect(collapseCidrs(['10.244.1.0/24', '10.244.2.0/24'])).toEqual([
      '10.244.1.0/24',
      '10.244.2.0/24',
    ]);
  });

  it('takes single addresses and IPv6, normalises host bits, ignores names', () => {
    expect(
      collapseCidrs([
        'fd00:10:244:1::/64',
        'fd00:10:244::/64',
        '192.168.0.7',
        'node-a',
        '10.0.0.9/8',
      ]),
    ).toEqual(['10.0.0.0/8', '192.168.0.7/32', 'fd00:10:244::/63']);
  });

  it('gives the one range per family that covers ranges with gaps', () => {
    expect(
      coveringCidrs(['10.244.3.0/24', '10.244.200.0/24', 'fd00::/64', 'fd00:0:0:8::/64']),
    ).toEqual(['10.244.0.0/16', 'fd00::/60']);
  });

  it('tells whether a range holds an address', () => {
    expect(cidrCovers('10.96.0.0/12', '10.100.0.1')).toBe(true);
    expect(cidrCovers('10.96.0.0/12', '10.112.0.1')).toBe(false);
    expect(cidrCovers('10.96.0.0/12', 'fd00::1')).toBe(false);
  });
});
