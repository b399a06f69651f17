// Who a caller is, as far as the proxy's per-identity limits go: always derived from a token the
// apiserver has accepted (credential.ts reads the token as the apiserver does; a request counts
// for it only once an answer or a check proved it, proven-tokens.ts), never from text the client
// chose. Then the token's claims are the signer's, and an identity is something a tenant cannot
// multiply cheaply:
// - a service-account JWT counts for its namespace (its `sub`,
//   `system:serviceaccount:<ns>:<name>`, with its issuer), so a tenant minting ServiceAccounts in
//   its namespace still shares one budget;
// - another JWT counts for its issuer and subject (a person of an OIDC provider);
// - any other token counts for a hash of itself; no token is `anonymous`.
import { createHash } from 'node:crypto';
import { parseJwt } from '../door/jwt.js';

export interface CallerIdentity {
  /** What the limits count by. */
  key: string;
  /** For messages and logs: `service accounts of namespace team-a`. */
  description: string;
  anonymous: boolean;
}

const ANONYMOUS: CallerIdentity = {
  key: 'anonymous',
  description: 'anonymous callers',
  anonymous: true,
};
const SERVICE_ACCOUNT = /^system:serviceaccount:([^:]+):[^:]+$/;
/** Claims are the caller's text: shown no longer than this. */
const SHOWN = 100;

/** A key of bounded size, whatever the length of the claims it stands for. */
const keyOf = (...parts: string[]) =>
  createHash('sha256').update(parts.join('\n')).digest('base64url');

/** The identity of a bearer token (credential.ts), or anonymous without one. */
export function callerIdentity(token: string | undefined): CallerIdentity {
  if (token === undefined) return ANONYMOUS;
  const claims = parseJwt(token)?.claims;
  if (claims !== undefined && typeof claims.sub === 'string' && claims.sub !== '') {
    const issuer = typeof claims.iss === 'string' ? claims.iss : '';
    const namespace = SERVICE_ACCOUNT.exec(claims.sub)?.[1];
    if (namespace !== undefined) {
      return {
        key: `serviceaccounts:${keyOf(issuer, namespace)}`,
        description: `service accounts of namespace ${namespace.slice(0, SHOWN)}`,
        anonymous: false,
      };
    }
    return {
      key: `subject:${keyOf(issuer, claims.sub)}`,
      description: `subject ${claims.sub.slice(0, SHOWN)}`,
      anonymous: false,
    };
  }
  const hash = createHash('sha256').update(token).digest('hex');
  return {
    key: `credential:${hash}`,
    description: `the credential with sha256 ${hash.slice(0, 12)}…`,
    anonymous: false,
  };
}

/**
 * Whether the apiserver's answer shows that it accepted the token the request carried (never
 * asked for a request without one: with anonymous authentication on, such a request is
 * answered too): anything but 401, short of a server error (which may come before
 * authentication). OPTIONS is left out: a CORS preflight can be answered before authentication.
 */
export function provesCredential(status: number, method: string): boolean {
  return status !== 401 && status < 500 && method !== 'OPTIONS';
}
