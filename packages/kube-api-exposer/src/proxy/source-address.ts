// What the per-source connection limits count by: the client's IPv4 address, or the /64 of its
// IPv6 address. A host given an IPv6 /64 (the usual smallest assignment) can connect from any of
// its 2^64 addresses, so counting single IPv6 addresses would bound nothing.
import { isIPv6 } from 'node:net';

/** 16-bit groups of an IPv6 address, `::` expanded (an embedded IPv4 tail is two groups). */
function groups(address: string): string[] {
  const parts = (half: string) => {
    if (half === '') return [];
    const split = half.split(':');
    return split.flatMap((group) => (group.includes('.') ? ['0', '0'] : [group]));
  };
  const [left = '', right] = address.split('::');
  if (right === undefined) return parts(left);
  const head = parts(left);
  const tail = parts(right);
  return [...head, ...Array<string>(Math.max(0, 8 - head.length - tail.length)).fill('0'), ...tail];
}

/** `203.0.113.7`, `2001:db8:0:1::/64`; IPv4-mapped IPv6 addresses count as their IPv4. */
export function sourceOf(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return mapped;
  const bare = address.split('%')[0] ?? address;
  if (!isIPv6(bare)) return address;
  const prefix = groups(bare)
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16));
  return `${prefix.join(':')}::/64`;
}
