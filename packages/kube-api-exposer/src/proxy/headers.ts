// The headers the proxy forwards each way. Hop-by-hop headers (RFC 9110 §7.6.1) belong to one
// connection and are dropped, as are any the Connection header names; everything else, above
// all the caller's own Authorization, passes untouched. The proxy never adds a credential.
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

export interface ForwardContext {
  /** The caller's address, appended to X-Forwarded-For. */
  remoteAddress: string | undefined;
  /** host[:port] of the upstream, sent as Host. */
  upstreamHost: string;
  /** Keep `Connection: Upgrade` and `Upgrade` (exec, attach, port-forward, WebSocket). */
  upgrade?: boolean;
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
  let forwardedFor: string | undefined;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? '';
    const value = rawHeaders[i + 1] ?? '';
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || dropped.has(lower) || lower === 'host') continue;
    if (lower === 'x-forwarded-for') {
      forwardedFor = forwardedFor === undefined ? value : `${forwardedFor}, ${value}`;
      continue;
    }
    out.push(name, value);
  }
  const client = context.remoteAddress?.replace(/^::ffff:/, '');
  if (client !== undefined) {
    forwardedFor = forwardedFor === undefined ? client : `${forwardedFor}, ${client}`;
  }
  if (forwardedFor !== undefined) out.push('X-Forwarded-For', forwardedFor);
  if (parsed['x-forwarded-proto'] === undefined) out.push('X-Forwarded-Proto', 'https');
  if (parsed.host !== undefined && parsed['x-forwarded-host'] === undefined) {
    out.push('X-Forwarded-Host', parsed.host);
  }
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
