// IP addresses and CIDRs as they appear in NO_PROXY and in the cluster's network settings:
// validation for the configuration, and the first address of a service CIDR, which is where
// Kubernetes puts the `kubernetes` Service (the API server's in-cluster IP).
import { isIP } from 'node:net';

export interface Cidr {
  address: string;
  prefix: number;
  family: 4 | 6;
}

/** Parses `10.96.0.0/12` or `fd00:10:96::/112`; undefined when it is not a CIDR. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const address = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  const family = isIP(address);
  if ((family !== 4 && family !== 6) || !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  if (prefix > (family === 4 ? 32 : 128)) return undefined;
  return { address, prefix, family };
}

export function isIpAddress(text: string): boolean {
  return isIP(text) !== 0;
}

/** An address as a number (IPv4: 32 bits, IPv6: 128 bits). */
export function addressToBigInt(address: string, family: 4 | 6): bigint {
  return family === 4 ? ipv4ToBigInt(address) : ipv6ToBigInt(address.toLowerCase());
}

/** The text form of an address number: dotted quad, or RFC 5952 for IPv6. */
export function formatAddress(value: bigint, family: 4 | 6): string {
  if (family === 6) return formatIpv6(value);
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

function ipv4ToBigInt(address: string): bigint {
  return address.split('.').reduce((value, octet) => (value << 8n) | BigInt(octet), 0n);
}

function ipv6ToBigInt(address: string): bigint {
  let text = address;
  // An embedded IPv4 tail (::ffff:10.0.0.1) becomes two hexadecimal groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted !== undefined) {
    const v4 = ipv4ToBigInt(dotted);
    text = `${text.slice(0, -dotted.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].reduce(
    (value, group) => (value << 16n) | BigInt(`0x${group}`),
    0n,
  );
}

function formatIpv6(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) =>
    ((value >> BigInt((7 - i) * 16)) & 0xffffn).toString(16),
  );
  // RFC 5952: the longest run (of two or more) of zero groups becomes `::`.
  let best = { start: -1, length: 1 };
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') {
      i += 1;
      continue;
    }
    let end = i;
    while (end < 8 && groups[end] === '0') end += 1;
    if (end - i > best.length) best = { start: i, length: end - i };
    i = end;
  }
  if (best.start < 0) return groups.join(':');
  const before = groups.slice(0, best.start).join(':');
  const after = groups.slice(best.start + best.length).join(':');
  return `${before}::${after}`;
}

/**
 * The first host address of a CIDR (network address + 1): `10.96.0.0/12` → `10.96.0.1`. The
 * apiserver allocates it to the `kubernetes` Service of a cluster with that service range.
 */
export function firstHostAddress(cidr: Cidr): string {
  const bits = cidr.family === 4 ? 32 : 128;
  const value = addressToBigInt(cidr.address, cidr.family);
  const hostBits = BigInt(bits - cidr.prefix);
  const network = (value >> hostBits) << hostBits;
  const first = cidr.prefix >= bits ? network : network + 1n;
  return formatAddress(first, cidr.family);
}
