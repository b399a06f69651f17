// What the caller hears when the apiserver could not be asked. An apiserver that is restarting
// (refused, reset) gets 503 with Retry-After, which client-go retries; an apiserver whose
// certificate the proxy does not trust gets 502 naming the fix, since retrying will not help.
import type { ProxyStatus } from './status-response.js';

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

const TLS_TRUST = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_SIGNATURE_FAILURE',
]);

export function upstreamFailure(error: Error, upstream: URL): ProxyStatus {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const where = `the API server at ${upstream.origin}`;
  if (TLS_TRUST.has(code)) {
    return {
      code: 502,
      message: `${where} presented a certificate the proxy does not trust (${code}: ${error.message}); give the proxy the CA that signed it (its upstreamCa option)`,
    };
  }
  if (UNREACHABLE.has(code)) {
    return {
      code: 503,
      message: `${where} cannot be reached (${code}); it may be restarting, retry shortly`,
      retryAfterSeconds: 1,
    };
  }
  return { code: 502, message: `${where} failed: ${error.message}` };
}

/** Errors after which an idempotent request may be sent once more on a fresh connection. */
export function isStaleConnection(error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}
