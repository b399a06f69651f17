import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signJwt } from '../testing/jwt.js';
import { callerIdentity, provesCredential } from './identity.js';

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const bearer = (claims: Record<string, unknown>) => signJwt(claims, privateKey);
const ISSUER = 'https://kubernetes.default.svc.cluster.local';

describe('callerIdentity', () => {
  it('counts every ServiceAccount of a namespace as that namespace', () => {
    const a = callerIdentity(bearer({ iss: ISSUER, sub: 'system:serviceaccount:team-a:plugin' }));
    const b = callerIdentity(bearer({ iss: ISSUER, sub: 'system:serviceaccount:team-a:other' }));
    const c = callerIdentity(bearer({ iss: ISSUER, sub: 'system:serviceaccount:team-c:plugin' }));
    expect(a.key).toBe(b.key);
    expect(a.key).not.toBe(c.key);
    expect(a.description).toBe('service accounts of namespace team-a');
    expect(a.anonymous).toBe(false);
  });

  it('counts another JWT by its issuer and subject, and keeps issuers apart', () => {
    const alice = callerIdentity(bearer({ iss: 'https://idp.example', sub: 'alice' }));
    expect(alice.description).toBe('subject alice');
    expect(callerIdentity(bearer({ iss: 'https://idp.example', sub: 'alice', n: 2 })).key).toBe(
      alice.key,
    );
    expect(callerIdentity(bearer({ iss: 'https://other.example', sub: 'alice' })).key).not.toBe(
      alice.key,
    );
    // A subject shaped like a ServiceAccount from another issuer is not that namespace.
    const sa = callerIdentity(bearer({ iss: ISSUER, sub: 'system:serviceaccount:team-a:x' }));
    const lookalike = callerIdentity(
      bearer({ iss: 'https://idp.example', sub: 'system:serviceaccount:team-a:x' }),
    );
    expect(lookalike.key).not.toBe(sa.key);
  });

  it('counts any other token by its hash, and shows no part of it', () => {
    const opaque = callerIdentity('abcdef0123456789.secret');
    expect(opaque.key).toBe(callerIdentity('abcdef0123456789.secret').key);
    expect(opaque.key).not.toBe(callerIdentity('another-token').key);
    expect(opaque.description).toMatch(/^the credential with sha256 [0-9a-f]{12}…$/);
    expect(opaque.key).not.toContain('secret');
    // Three parts that are not JSON claims, and claims without a subject, are opaque too.
    expect(callerIdentity('a.b.c').key).toMatch(/^credential:/);
    expect(callerIdentity(bearer({ iss: ISSUER })).key).toMatch(/^credential:/);
  });

  it('keeps keys short whatever the claims', () => {
    const long = callerIdentity(bearer({ iss: 'x'.repeat(20_000), sub: 'y'.repeat(20_000) }));
    expect(long.key.length).toBeLessThan(80);
    expect(long.description.length).toBeLessThan(120);
  });

  it('is anonymous without a token', () => {
    expect(callerIdentity(undefined).anonymous).toBe(true);
  });
});

describe('provesCredential', () => {
  it('takes any answer but 401 and server errors as the apiserver accepting the credential', () => {
    expect(provesCredential(200, 'GET')).toBe(true);
    expect(provesCredential(403, 'GET')).toBe(true);
    expect(provesCredential(404, 'DELETE')).toBe(true);
    expect(provesCredential(401, 'GET')).toBe(false);
    expect(provesCredential(503, 'GET')).toBe(false);
    expect(provesCredential(204, 'OPTIONS')).toBe(false);
  });
});
