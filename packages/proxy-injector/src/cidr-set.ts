// Aggregating address ranges for NO_PROXY. A cluster of many nodes has one pod range per node
// (10.244.0.0/24, 10.244.1.0/24, ...); listing each would make NO_PROXY grow with the cluster, so
// ranges are collapsed: contained ranges dropped, sibling halves joined into their parent.
import { addressToBigInt, formatAddress, parseCidr } from './addresses.js';

interface Range {
  family: 4 | 6;
  network: bigint;
  prefix: number;
}

const bitsOf = (family: 4 | 6) => (family === 4 ? 32 : 128);

function toRange(text: string): Range | undefined {
  const cidr = parseCidr(text) ?? parseCidr(`${text}/${text.includes(':') ? 128 : 32}`);
  if (!cidr) return undefined;
  const hostBits = BigInt(bitsOf(cidr.family) - cidr.prefix);
  const value = addressToBigInt(cidr.address, cidr.family);
  return { family: cidr.family, network: (value >> hostBits) << hostBits, prefix: cidr.prefix };
}

function format(range: Range): string {
  return `${formatAddress(range.network, range.family)}/${range.prefix}`;
}

function contains(outer: Range, inner: Range): boolean {
  if (outer.family !== inner.family || outer.prefix > inner.prefix) return false;
  const shift = BigInt(bitsOf(outer.family) - outer.prefix);
  return inner.network >> shift === outer.network >> shift;
}

function byAddress(a: Range, b: Range): number {
  if (a.family !== b.family) return a.family - b.family;
  if (a.network !== b.network) return a.network < b.network ? -1 : 1;
  return a.prefix - b.prefix;
}

/**
 * The smallest list of CIDRs covering exactly the same addresses as `items` (CIDRs or single
 * addresses; anything else is ignored), sorted by family and address. Never covers more.
 */
export function collapseCidrs(items: readonly string[]): string[] {
  let ranges = items
    .map(toRange)
    .filter((range): range is Range => range !== undefined)
    .sort(byAddress);
  for (let changed = true; changed;) {
    changed = false;
    const next: Range[] = [];
    for (const range of ranges) {
      const last = next.at(-1);
      if (last && contains(last, range)) continue; // a duplicate, or inside the one before
      // Two halves of the same parent: `last` is the lower one, `range` the upper.
      if (last?.family === range.family && last.prefix === range.prefix && last.prefix > 0) {
        const size = 1n << BigInt(bitsOf(range.family) - range.prefix);
        if (last.network + size === range.network && ((last.network / size) & 1n) === 0n) {
          next[next.length - 1] = { ...last, prefix: last.prefix - 1 };
          changed = true;
          continue;
        }
      }
      next.push(range);
    }
    ranges = next.sort(byAddress);
  }
  return ranges.map(format);
}

/**
 * The one CIDR per address family that covers every item: the longest prefix they share.
 * Wider than the items when they have gaps, so only for ranges known to lie inside one block
 * of the same kind (node pod ranges are carved out of the cluster's pod range).
 */
export function coveringCidrs(items: readonly string[]): string[] {
  const out: string[] = [];
  for (const family of [4, 6] as const) {
    const ranges = items.map(toRange).filter((range): range is Range => range?.family === family);
    const [first, ...rest] = ranges;
    if (!first) continue;
    let { network, prefix } = first;
    for (const range of rest) {
      prefix = Math.min(prefix, range.prefix);
      while (prefix > 0) {
        const shift = BigInt(bitsOf(family) - prefix);
        if (network >> shift === range.network >> shift) break;
        prefix -= 1;
      }
      const shift = BigInt(bitsOf(family) - prefix);
      network = (network >> shift) << shift;
    }
    out.push(format({ family, network, prefix }));
  }
  return out;
}

/** Whether the CIDR `range` holds `item` (an address or a CIDR). */
export function cidrCovers(range: string, item: string): boolean {
  const outer = toRange(range);
  const inner = toRange(item);
  return outer !== undefined && inner !== undefined && contains(outer, inner);
}
