// Signs service-account-shaped JWTs with a key the test apiserver is told to trust
// (--service-account-key-file), to present tokens a TokenRequest cannot produce: expired ones.
import { sign, type KeyObject } from 'node:crypto';

const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** ES256 JWT (P-256 key); `kid` is omitted so the apiserver tries every key it trusts. */
export function signJwt(claims: Record<string, unknown>, privateKey: KeyObject): string {
  const signingInput = `${part({ alg: 'ES256', typ: 'JWT' })}.${part(claims)}`;
  const signature = sign('sha256', Buffer.from(signingInput), {
    key: privateKey,
    dsaEncoding: 'ieee-p1363',
  });
  return `${signingInput}.${signature.toString('base64url')}`;
}

/** The claims of a JWT, unverified. */
export function jwtClaims(token: string): Record<string, unknown> {
  const payload = token.split('.')[1] ?? '';
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
}
