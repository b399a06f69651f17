// Java ignores HTTP(S)_PROXY/NO_PROXY; it reads system properties, which JAVA_TOOL_OPTIONS can
// carry into any JVM. http.nonProxyHosts knows only `|`-separated host patterns with a leading or
// trailing `*`: no CIDRs, so IPv4 ranges become octet wildcards where that stays short.
import { isIpAddress, parseCidr } from './addresses.js';

/** Flags that mark JAVA_TOOL_OPTIONS as already carrying proxy settings (ours or the workload's). */
export const JAVA_PROXY_FLAG = /-Dhttps?\.proxyHost=/;

// A /12 service range is 16 patterns; a /9 would be 128, too long to be worth carrying.
const MAX_PATTERNS_PER_CIDR = 32;

function hostAndPort(proxy: string): { host: string; port: string } {
  const url = new URL(proxy);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return { host, port: url.port || (url.protocol === 'https:' ? '443' : '80') };
}

function ipv4Patterns(address: string, prefix: number): string[] | undefined {
  const octets = address.split('.').map(Number);
  const whole = Math.floor(prefix / 8);
  if (whole === 4) return [address];
  const spare = prefix % 8;
  const count = 2 ** (spare === 0 ? 0 : 8 - spare);
  if (count > MAX_PATTERNS_PER_CIDR) return undefined;
  const fixed = octets.slice(0, whole);
  if (spare === 0) return [[...fixed, '*'].join('.')];
  const base = (octets[whole] ?? 0) & (0xff << (8 - spare)) & 0xff;
  return Array.from({ length: count }, (_, i) => [...fixed, base + i, '*'].join('.'));
}

/** One NO_PROXY entry as nonProxyHosts patterns; undefined when Java cannot express it. */
function javaPatterns(entry: string): string[] | undefined {
  if (entry === '*') return ['*'];
  const cidr = parseCidr(entry);
  if (cidr) return cidr.family === 4 ? ipv4Patterns(cidr.address, cidr.prefix) : undefined;
  if (isIpAddress(entry)) return [entry];
  if (entry.includes('/') || entry.includes(':')) return undefined; // host:port has no pattern
  if (entry.startsWith('*.')) return [entry];
  // As Go and curl read NO_PROXY: `.svc` matches names under svc, `corp.example` matches
  // itself and every name under it.
  const domain = entry.replace(/^\.+/, '');
  if (entry.startsWith('.')) return [`*.${domain}`];
  return domain.includes('.') ? [domain, `*.${domain}`] : [domain];
}

export interface JavaOptions {
  /** Space-separated `-D` flags, empty when there is no proxy to point at. */
  flags: string;
  /** NO_PROXY entries Java cannot express (IPv6 ranges, wide IPv4 ranges, host:port). */
  unsupported: string[];
}

export function javaProxyOptions(
  httpProxy: string | undefined,
  httpsProxy: string | undefined,
  noProxy: readonly string[],
): JavaOptions {
  const flags: string[] = [];
  for (const [scheme, proxy] of [
    ['http', httpProxy],
    ['https', httpsProxy],
  ] as const) {
    if (proxy === undefined) continue;
    const { host, port } = hostAndPort(proxy);
    flags.push(`-D${scheme}.proxyHost=${host}`, `-D${scheme}.proxyPort=${port}`);
  }
  if (flags.length === 0) return { flags: '', unsupported: [] };
  const patterns: string[] = [];
  const unsupported: string[] = [];
  for (const entry of noProxy) {
    const converted = javaPatterns(entry);
    if (converted === undefined) unsupported.push(entry);
    else for (const pattern of converted) if (!patterns.includes(pattern)) patterns.push(pattern);
  }
  // http.nonProxyHosts is read for HTTPS connections too.
  if (patterns.length > 0) flags.push(`-Dhttp.nonProxyHosts=${patterns.join('|')}`);
  return { flags: flags.join(' '), unsupported };
}
