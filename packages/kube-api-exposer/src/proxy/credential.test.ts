import { describe, expect, it } from 'vitest';
import { bearerToken, requestCredential } from './credential.js';

/** A request as node:http parses it: headers by lower-case name, and the raw pairs. */
function request(pairs: [string, string][]) {
  const headers: Record<string, string> = {};
  for (const [name, value] of pairs) {
    const lower = name.toLowerCase();
    // node:http keeps the first Authorization and joins other repeated headers.
    if (lower === 'authorization' && headers[lower] !== undefined) continue;
    headers[lower] = headers[lower] === undefined ? value : `${headers[lower]}, ${value}`;
  }
  return { headers, rawHeaders: pairs.flat() };
}

const webSocket = (protocols: string, authorization?: string) =>
  request([
    ['Connection', 'Upgrade'],
    ['Upgrade', 'websocket'],
    ['Sec-WebSocket-Protocol', protocols],
    ...(authorization === undefined ? [] : [['Authorization', authorization] as [string, string]]),
  ]);

const protocolToken = (token: string) =>
  `base64url.bearer.authorization.k8s.io.${Buffer.from(token).toString('base64url')}`;

describe('bearerToken reads Authorization as kube-apiserver does', () => {
  it('takes the part after "Bearer " in any case, and ignores what follows the next space', () => {
    expect(bearerToken('Bearer abc.def')).toBe('abc.def');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('BEARER abc')).toBe('abc');
    expect(bearerToken('Bearer abc anything else')).toBe('abc');
    expect(bearerToken(' Bearer abc ')).toBe('abc');
  });

  it('finds no token where the apiserver finds none (it would serve system:anonymous)', () => {
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken('')).toBeUndefined();
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken('Bearer\tabc')).toBeUndefined();
    expect(bearerToken('Bearer  abc')).toBeUndefined();
    expect(bearerToken('Basic dXNlcjpwYXNz')).toBeUndefined();
    expect(bearerToken('Bearerabc')).toBeUndefined();
  });

  it('finds none where the two readings could differ: bytes beyond printable ASCII', () => {
    expect(bearerToken('Bearer abc\u00a0')).toBeUndefined();
    expect(bearerToken('Bearer \u00e9t\u00e9')).toBeUndefined();
  });
});

describe('requestCredential', () => {
  it('reads the token of a WebSocket subprotocol, when the apiserver would', () => {
    expect(requestCredential(webSocket(`${protocolToken('abc')}, base64.channel.k8s.io`))).toEqual({
      token: 'abc',
      inSubprotocol: true,
    });
    // Alone (nothing to answer with), twice, or not base64url: the apiserver refuses it (401).
    expect(requestCredential(webSocket(protocolToken('abc')))).toEqual({});
    const twice = `${protocolToken('a')}, ${protocolToken('b')}, base64.channel.k8s.io`;
    expect(requestCredential(webSocket(twice))).toEqual({});
    const bad = 'base64url.bearer.authorization.k8s.io.a+b/, base64.channel.k8s.io';
    expect(requestCredential(webSocket(bad))).toEqual({});
    // Not a WebSocket upgrade: the apiserver does not look at subprotocols.
    const plain = request([['Sec-WebSocket-Protocol', `${protocolToken('abc')}, x`]]);
    expect(requestCredential(plain)).toEqual({});
  });

  it('refuses two credentials, and two Authorization headers', () => {
    const both = webSocket(`${protocolToken('a')}, base64.channel.k8s.io`, 'Bearer b');
    expect(requestCredential(both).refused).toContain('two credentials');
    const twice = request([
      ['Authorization', 'Bearer a'],
      ['authorization', 'Bearer b'],
    ]);
    expect(requestCredential(twice).refused).toContain('more than one Authorization header');
    // A header the apiserver reads as no token leaves the subprotocol's.
    const disguised = webSocket(`${protocolToken('a')}, base64.channel.k8s.io`, 'Bearer\tb');
    expect(requestCredential(disguised)).toEqual({ token: 'a', inSubprotocol: true });
  });
});
