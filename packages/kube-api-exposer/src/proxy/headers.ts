// The headers the proxy forwards each way. Hop-by-hop headers (RFC 9110 §7.6.1) belong to one
// connection and are dropped, as are any the Connection header names. Headers that claim where
// a request came from (X-Forwarded-*, Forwarded, X-Real-Ip) or who a front proxy says the caller
// is (X-Remote-*) are never taken from the caller: the apiserver writes the first into audit
// sourceIPs, and the second would be an identity if a client certificate ever went with it. The
// proxy sets X-Forwarded-For/-Proto/-Host itself from what it saw. Everything else, above all the
// caller's own Authorization and Impersonate-* (authorized against that same token), passes
// untouched. The proxy adds no credential of its own: it only swaps a remote Pod's token for a
// short-lived one of the same ServiceAccount and Pod (door/door.ts).
import type { IncomingHttpHeaders } from 'node:http';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  // The proxy answers 100-continue itself; the upstream gets the body straight away.
  'expect',
]);

/** Where a request came from: set by the proxy, never taken from the caller. */
const FORWARDING = new Set(['forwarded', 'x-real-ip']);
const FORWARDING_PREFIXES = ['x-forwarded-', 'x-remote-'];

function isForwarding(lower: string): boolean {
  return FORWARDING.has(lower) || FORWARDING_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

export interface ForwardContext {
  /** The caller's address as the proxy's socket saw it: the whole X-Forwarded-For. */
  remoteAddress: string | undefined;
  /** host[:port] of the upstream, sent as Host. */
  upstreamHost: string;
  /** Keep `Connection: Upgrade` and `Upgrade` (exec, attach, port-forward, WebSocket). */
  upgrade?: boolean;
  /** Send this token instead of the caller's (the door's exchange for a remote Pod). */
  token?: string | undefined;
}

function connectionTokens(value: string | string[] | undefined): Set<string> {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return new Set(
    text
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean),
  );
}

/** Request headers for the upstream, from the caller's raw headers (duplicates kept). */
export function requestHeadersFor(
  rawHeaders: readonly string[],
  parsed: IncomingHttpHeaders,
  context: ForwardContext,
): string[] {
  const dropped = connectionTokens(parsed.connection);
  const out: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? '';
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || dropped.has(lower) || lower === 'host') continue;
    if (isForwarding(lower)) continue;
    if (lower === 'authorization' && context.token !== undefined) continue;
    out.push(name, rawHeaders[i + 1] ?? '');
  }
  if (context.token !== undefined) out.push('Authorization', `Bearer ${context.token}`);
  const client = context.remoteAddress?.replace(/^::ffff:/, '');
  if (client !== undefined) out.push('X-Forwarded-For', client);
  // The listener only speaks TLS.
  out.push('X-Forwarded-Proto', 'https');
  if (parsed.host !== undefined) out.push('X-Forwarded-Host', parsed.host);
  out.push('Host', context.upstreamHost);
  if (context.upgrade && parsed.upgrade !== undefined) {
    out.push('Connection', 'Upgrade', 'Upgrade', parsed.upgrade);
  }
  return out;
}

/** Response headers for the caller, from the upstream's raw headers. */
export function responseHeadersFor(
  rawHeaders: readonly string[],
  parsed: IncomingHttpHeaders,
  options: { upgrade?: boolean } = {},
): string[] {
  const dropped = connectionTokens(parsed.connection);
  const out: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? '';
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || dropped.has(lower)) continue;
    out.push(name, rawHeaders[i + 1] ?? '');
  }
  if (options.upgrade && parsed.upgrade !== undefined) {
    out.push('Connection', 'Upgrade', 'Upgrade', parsed.upgrade);
  }
  return out;
}

/** `Name: value\r\n` lines for writing a response head on a raw socket. */
export function headerLines(headers: readonly string[]): string {
  let text = '';
  for (let i = 0; i + 1 < headers.length; i += 2) {
    text += `${headers[i] ?? ''}: ${headers[i + 1] ?? ''}\r\n`;
  }
  return text;
}
