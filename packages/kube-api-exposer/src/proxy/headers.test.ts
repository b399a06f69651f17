import { describe, expect, it } from 'vitest';
import { requestHeadersFor, responseHeadersFor } from './headers.js';

const pairs = (raw: string[]) => {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i] ?? '', raw[i + 1] ?? '']);
  return out;
};
const parsedOf = (raw: string[]) =>
  Object.fromEntries(pairs(raw).map(([k, v]) => [k.toLowerCase(), v])) as Record<string, string>;

describe('requestHeadersFor', () => {
  const forward = (raw: string[], upgrade = false) =>
    pairs(
      requestHeadersFor(raw, parsedOf(raw), {
        remoteAddress: '::ffff:198.51.100.4',
        upstreamHost: '10.96.0.1:443',
        upgrade,
      }),
    );

  it('passes the caller’s Authorization untouched and adds no credential of its own', () => {
    const out = forward([
      'Authorization',
      'Bearer abc.def.ghi',
      'Accept',
      'application/json',
      'Impersonate-User',
      'bob',
    ]);
    expect(out.filter(([k]) => k === 'Authorization')).toEqual([
      ['Authorization', 'Bearer abc.def.ghi'],
    ]);
    expect(out).toContainEqual(['Impersonate-User', 'bob']);
    expect(forward(['Accept', '*/*']).some(([k]) => /authorization/i.test(k))).toBe(false);
  });

  it('drops hop-by-hop headers, those the Connection header names, and proxy credentials', () => {
    const out = forward([
      'Connection',
      'keep-alive, X-Secret-Hop',
      'Keep-Alive',
      'timeout=5',
      'X-Secret-Hop',
      '1',
      'Proxy-Authorization',
      'Basic c2VjcmV0',
      'Transfer-Encoding',
      'chunked',
      'TE',
      'trailers',
      'Upgrade',
      'websocket',
      'Host',
      'exposed.example.org:443',
    ]);
    const names = out.map(([k]) => k.toLowerCase());
    for (const dropped of [
      'connection',
      'keep-alive',
      'x-secret-hop',
      'proxy-authorization',
      'transfer-encoding',
      'te',
      'upgrade',
    ]) {
      expect(names).not.toContain(dropped);
    }
    expect(out).toContainEqual(['Host', '10.96.0.1:443']);
    expect(out).toContainEqual(['X-Forwarded-Host', 'exposed.example.org:443']);
  });

  it('appends the caller to X-Forwarded-For', () => {
    expect(forward(['X-Forwarded-For', '203.0.113.9'])).toContainEqual([
      'X-Forwarded-For',
      '203.0.113.9, 198.51.100.4',
    ]);
    expect(forward([])).toContainEqual(['X-Forwarded-For', '198.51.100.4']);
  });

  it('keeps the upgrade handshake for exec, attach and port-forward', () => {
    const out = forward(
      [
        'Connection',
        'Upgrade',
        'Upgrade',
        'SPDY/3.1',
        'X-Stream-Protocol-Version',
        'v4.channel.k8s.io',
      ],
      true,
    );
    expect(out).toContainEqual(['Connection', 'Upgrade']);
    expect(out).toContainEqual(['Upgrade', 'SPDY/3.1']);
    expect(out).toContainEqual(['X-Stream-Protocol-Version', 'v4.channel.k8s.io']);
  });
});

describe('responseHeadersFor', () => {
  it('keeps what the apiserver says about the body and drops connection management', () => {
    const raw = [
      'Content-Type',
      'application/json',
      'Transfer-Encoding',
      'chunked',
      'Connection',
      'close',
      'Audit-Id',
      'x',
    ];
    const out = pairs(responseHeadersFor(raw, parsedOf(raw)));
    expect(out).toEqual([
      ['Content-Type', 'application/json'],
      ['Audit-Id', 'x'],
    ]);
  });
});
