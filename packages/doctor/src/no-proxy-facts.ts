// NO_PROXY against the cluster, as pure functions: which of the cluster's ranges, addresses and
// namespaces a NO_PROXY value leaves to the proxy. Entries are matched the way the tools kfx
// injects for read them: a CIDR holds an address or a narrower range, a literal matches itself,
// and a domain (`team-a` or `.team-a`) matches the names under it.
import { cidrCovers, coveringCidrs } from '@kfx/proxy-injector';

/** NO_PROXY's entries, trimmed, empties dropped. */
export function noProxyEntries(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** Whether NO_PROXY keeps `item` (an address or a CIDR) off the proxy. */
export function covers(entries: readonly string[], item: string): boolean {
  return entries.some(
    (entry) => entry === item || (entry.includes('/') && cidrCovers(entry, item)),
  );
}

/** Whether NO_PROXY keeps names under the domain `domain` (`team-a`) off the proxy. */
export function coversDomain(entries: readonly string[], domain: string): boolean {
  const wanted = domain.replace(/^\./, '').toLowerCase();
  return entries.some((entry) => entry.replace(/^\*?\./, '').toLowerCase() === wanted);
}

/**
 * A pod range to suggest from the addresses Pods were seen with: the one CIDR covering them,
 * widened to a /24 (IPv4) or /64 (IPv6) at least, since a node's range is never narrower.
 */
export function suggestedPodRanges(podIps: readonly string[]): string[] {
  return coveringCidrs(podIps).map((cidr) => {
    const [address = '', prefix = '0'] = cidr.split('/');
    const widest = address.includes(':') ? 64 : 24;
    if (Number(prefix) <= widest) return cidr;
    return coveringCidrs([`${address}/${widest}`])[0] ?? cidr;
  });
}
