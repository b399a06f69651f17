// Who a caller is, as far as the proxy's per-identity limits go. The proxy verifies no token (the
// apiserver does), so an identity must be something a tenant cannot multiply cheaply:
// - a service-account JWT counts for its namespace (its unverified `sub` claim,
//   `system:serviceaccount:<ns>:<name>`, with its issuer), so a tenant minting ServiceAccounts in
//   its namespace still shares one budget;
// - another JWT counts for its issuer and subject (a person of an OIDC provider);
// - any other credential counts for a hash of itself; no credential is `anonymous`.
// Reading claims without verifying them is safe here because of how they are used: a forged
// token gets 401 from the apiserver at once, so it cannot keep a watch open, and a connection
// counts for an identity only after the apiserver accepted a request on it (`provesCredential`).
import { createHash } from 'node:crypto';

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
const JWT = /^[\w-]+\.([\w-]+)\.[\w-]+$/;
/** Claims are the caller's text: shown no longer than this. */
const SHOWN = 100;

function claimsOf(token: string): { sub?: unknown; iss?: unknown } | undefined {
  const payload = JWT.exec(token)?.[1];
  if (payload === undefined) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return typeof claims === 'object' && claims !== null ? claims : undefined;
  } catch {
    return undefined;
  }
}

/** The identity of a request from its `Authorization` header. */
export function callerIdentity(authorization: string | undefined): CallerIdentity {
  if (authorization === undefined || authorization.trim() === '') return ANONYMOUS;
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  const claims = token === undefined ? undefined : claimsOf(token);
  if (claims !== undefined && typeof claims.sub === 'string' && claims.sub !== '') {
    const issuer = typeof claims.iss === 'string' ? claims.iss : '';
    const namespace = SERVICE_ACCOUNT.exec(claims.sub)?.[1];
    if (namespace !== undefined) {
      return {
        key: `serviceaccounts\n${issuer}\n${namespace}`,
        description: `service accounts of namespace ${namespace.slice(0, SHOWN)}`,
        anonymous: false,
      };
    }
    return {
      key: `subject\n${issuer}\n${claims.sub}`,
      description: `subject ${claims.sub.slice(0, SHOWN)}`,
      anonymous: false,
    };
  }
  const hash = createHash('sha256').update(authorization).digest('hex');
  return {
    key: `credential\n${hash}`,
    description: `the credential with sha256 ${hash.slice(0, 12)}…`,
    anonymous: false,
  };
}

/**
 * Whether the apiserver's answer shows that it accepted the request's credential: anything but
 * 401, short of a server error (which may come before authentication). OPTIONS is left out: a
 * CORS preflight can be answered before authentication.
 */
export function provesCredential(status: number, method: string): boolean {
  return status !== 401 && status < 500 && method !== 'OPTIONS';
}
