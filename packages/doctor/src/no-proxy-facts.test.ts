import { describe, expect, it } from 'vitest';
import { covers, coversDomain, noProxyEntries, suggestedPodRanges } from './no-proxy-facts.js';

const entries = noProxyEntries(
  'localhost, .svc,10.96.0.0/12,10.0.0.1,.team-a,metadata.google.internal',
);

describe('NO_PROXY matching', () => {
  it('holds an address or a narrower range in a CIDR, and a literal as itself', () => {
    expect(covers(entries, '10.96.0.10')).toBe(true);
    expect(covers(entries, '10.100.0.0/16')).toBe(true);
    expect(covers(entries, '10.0.0.1')).toBe(true);
    expect(covers(entries, '10.0.0.0/24')).toBe(false);
    expect(covers(entries, '10.244.1.5')).toBe(false);
  });

  it('matches a domain with or without its leading dot', () => {
    expect(coversDomain(entries, 'team-a')).toBe(true);
    expect(coversDomain(entries, 'metadata.google.internal')).toBe(true);
    expect(coversDomain(entries, 'team-b')).toBe(false);
  });

  it('suggests a pod range covering the Pods seen, never narrower than a /24', () => {
    expect(suggestedPodRanges(['10.233.7.5', '10.233.7.9'])).toEqual(['10.233.7.0/24']);
    expect(suggestedPodRanges(['10.1.0.5', '10.1.3.9'])).toEqual(['10.1.0.0/22']);
    expect(suggestedPodRanges([])).toEqual([]);
  });
});
