// Why a token may have been refused, read from its own (unverified) claims: the apiserver only
// says 401, but the token itself tells when it expired, for whom it was made and what it is
// bound to.
export interface TokenClaims {
  exp?: number;
  nbf?: number;
  aud?: string | string[];
  sub?: string;
  'kubernetes.io'?: {
    namespace?: string;
    pod?: { name?: string };
    serviceaccount?: { name?: string };
  };
}

export function readClaims(token: string): TokenClaims | undefined {
  const payload = token.split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
    return claims !== null && typeof claims === 'object' ? claims : undefined;
  } catch {
    return undefined;
  }
}

export function refusalHints(token: string, now = Date.now()): string[] {
  const claims = readClaims(token);
  if (claims === undefined) {
    return ['the token is not a JWT: it may be a static or OIDC token the apiserver does not know'];
  }
  const hints: string[] = [];
  if (claims.exp !== undefined && claims.exp * 1000 <= now) {
    hints.push(
      `the token expired at ${new Date(claims.exp * 1000).toISOString()}: mint a new one (kfx expose-api kubeconfig)`,
    );
  }
  if (claims.nbf !== undefined && claims.nbf * 1000 > now + 60_000) {
    hints.push(
      `the token is not valid before ${new Date(claims.nbf * 1000).toISOString()}: check this machine's clock`,
    );
  }
  const audiences = Array.isArray(claims.aud)
    ? claims.aud
    : claims.aud === undefined
      ? []
      : [claims.aud];
  if (audiences.length > 0) {
    hints.push(
      `its audiences are ${audiences.join(', ')}: the apiserver accepts only its --api-audiences`,
    );
  }
  const pod = claims['kubernetes.io']?.pod?.name;
  if (pod !== undefined) {
    hints.push(
      `it is bound to Pod ${claims['kubernetes.io']?.namespace ?? '?'}/${pod}: it stops working when that Pod is deleted`,
    );
  }
  hints.push('a deleted and re-created service account also invalidates its tokens');
  return hints;
}
