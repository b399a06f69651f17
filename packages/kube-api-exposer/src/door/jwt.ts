// JSON Web Tokens as Kubernetes issues them for service accounts: split, read, and their
// signature checked against a public key (RS256/384/512 or ES256/384/512, the algorithms the
// apiserver signs with). Claims read before the signature is checked are the caller's text.
import { createVerify, type KeyObject } from 'node:crypto';

export interface Jwt {
  header: { alg?: unknown; kid?: unknown };
  claims: Record<string, unknown>;
  signingInput: string;
  signature: Buffer;
}

const PART = /^[\w-]+$/;

function json(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The parts of a compact JWS, or undefined when `token` is not one. */
export function parseJwt(token: string): Jwt | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((part) => PART.test(part))) return undefined;
  const [header, claims, signature] = parts as [string, string, string];
  const h = json(header);
  const c = json(claims);
  if (h === undefined || c === undefined) return undefined;
  return {
    header: h,
    claims: c,
    signingInput: `${header}.${claims}`,
    signature: Buffer.from(signature, 'base64url'),
  };
}

const HASHES: Record<string, string> = {
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
  ES256: 'sha256',
  ES384: 'sha384',
  ES512: 'sha512',
};

/** Whether `key` signed `jwt` with the algorithm its header names (and the key's type). */
export function signedBy(jwt: Jwt, key: KeyObject): boolean {
  const alg = typeof jwt.header.alg === 'string' ? jwt.header.alg : '';
  const hash = HASHES[alg];
  if (hash === undefined) return false;
  const ec = alg.startsWith('ES');
  if ((ec ? 'ec' : 'rsa') !== key.asymmetricKeyType) return false;
  try {
    return createVerify(hash)
      .update(jwt.signingInput)
      .verify(ec ? { key, dsaEncoding: 'ieee-p1363' } : key, jwt.signature);
  } catch {
    return false;
  }
}
