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
    // The apiserver authorizes impersonation against the caller's own token: forwarded as sent.
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

  it('sets X-Forwarded-For to the peer it saw, whatever the caller claims', () => {
    const out = forward([
      'X-Forwarded-For',
      '203.0.113.9',
      'x-forwarded-for',
      '203.0.113.10',
      'X-Real-Ip',
      '192.0.2.1',
      'Forwarded',
      'for=192.0.2.2;proto=http',
    ]);
    const names = out.map(([k]) => k.toLowerCase());
    expect(out.filter(([k]) => k.toLowerCase() === 'x-forwarded-for')).toEqual([
      ['X-Forwarded-For', '198.51.100.4'],
    ]);
    expect(names).not.toContain('x-real-ip');
    expect(names).not.toContain('forwarded');
    expect(forward([])).toContainEqual(['X-Forwarded-For', '198.51.100.4']);
  });

  it('sets X-Forwarded-Proto and -Host to what it received, and drops the caller’s', () => {
    const out = forward([
      'Host',
      'exposed.example.org',
      'X-Forwarded-Proto',
      'http',
      'X-Forwarded-Host',
      'spoofed.example.org',
      'X-Forwarded-Port',
      '80',
      'X-Forwarded-Prefix',
      '/admin',
    ]);
    const forwarded = out.filter(([k]) => k.toLowerCase().startsWith('x-forwarded-'));
    expect(forwarded).toEqual([
      ['X-Forwarded-For', '198.51.100.4'],
      ['X-Forwarded-Proto', 'https'],
      ['X-Forwarded-Host', 'exposed.example.org'],
    ]);
  });

  it('never forwards front-proxy identity headers', () => {
    const out = forward([
      'X-Remote-User',
      'system:admin',
      'X-Remote-Group',
      'system:masters',
      'X-Remote-Uid',
      '0',
      'X-Remote-Extra-Scopes',
      'all',
      'Authorization',
      'Bearer abc.def.ghi',
    ]);
    expect(out.some(([k]) => k.toLowerCase().startsWith('x-remote-'))).toBe(false);
    expect(out).toContainEqual(['Authorization', 'Bearer abc.def.ghi']);
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
