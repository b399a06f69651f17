// What the self-managed Secret holds, read and checked, and written back. Its keys:
//   tls.crt, tls.key   the serving certificate every replica serves,
//   ca.crt             the CAs the webhook configuration must trust (newest first): the one that
//                      signed tls.crt and, during a rotation, the next one and the previous one,
//                      each until it expires,
//   next.crt, next.key the next serving certificate, staged while its CA reaches every apiserver.
// The Secret is Opaque, not kubernetes.io/tls: that type requires tls.crt and tls.key in the
// rendered manifest, which `kubectl apply` and GitOps tools would then reset to empty.
import { checkTlsPair } from '@kfx/kube-runtime/serving';
import type { X509Certificate } from 'node:crypto';
import { bundlePem, notAfter, parseBundle, type ServingPair } from './certificates.js';

const KEYS = {
  cert: 'tls.crt',
  key: 'tls.key',
  cas: 'ca.crt',
  nextCert: 'next.crt',
  nextKey: 'next.key',
} as const;

export interface TlsState {
  /** tls.crt and tls.key, when both are there, parse and fit each other. */
  current?: ServingPair | undefined;
  /** next.crt and next.key, likewise. */
  next?: ServingPair | undefined;
  /** ca.crt, every certificate that parses. */
  cas: X509Certificate[];
  /** What is wrong with what the Secret holds, for the log (empty for an empty Secret). */
  problems: string[];
}

const decode = (data: Record<string, string>, key: string): string | undefined => {
  const value = data[key];
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
};

function pairOf(
  data: Record<string, string>,
  certKey: string,
  keyKey: string,
  source: string,
  problems: string[],
): ServingPair | undefined {
  const cert = decode(data, certKey);
  const key = decode(data, keyKey);
  if (!cert && !key) return undefined;
  if (!cert || !key) {
    problems.push(`${source}: ${cert ? keyKey : certKey} is missing or empty`);
    return undefined;
  }
  try {
    return {
      cert,
      key,
      certificate: checkTlsPair({ cert, key }, `${source} ${certKey}, ${keyKey}`),
    };
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
    return undefined;
  }
}

/** Reads the Secret's data (base64 values, as the API gives them); `source` names it. */
export function readTlsState(data: Record<string, string> | undefined, source: string): TlsState {
  const problems: string[] = [];
  const values = data ?? {};
  let cas: X509Certificate[] = [];
  const bundle = decode(values, KEYS.cas);
  if (bundle !== undefined) {
    try {
      cas = parseBundle(bundle, `${source} ${KEYS.cas}`);
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
  }
  return {
    current: pairOf(values, KEYS.cert, KEYS.key, source, problems),
    next: pairOf(values, KEYS.nextCert, KEYS.nextKey, source, problems),
    cas,
    problems,
  };
}

/** The CAs still valid at `now`: what the caBundle holds. */
export const validCas = (cas: readonly X509Certificate[], now: number): X509Certificate[] =>
  cas.filter((ca) => notAfter(ca) > now);

/** The Secret's data for this state (base64 values). */
export function tlsData(state: Pick<TlsState, 'current' | 'next' | 'cas'>): Record<string, string> {
  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  const data: Record<string, string> = {};
  if (state.current) {
    data[KEYS.cert] = b64(state.current.cert);
    data[KEYS.key] = b64(state.current.key);
  }
  if (state.cas.length > 0) data[KEYS.cas] = b64(bundlePem(state.cas));
  if (state.next) {
    data[KEYS.nextCert] = b64(state.next.cert);
    data[KEYS.nextKey] = b64(state.next.key);
  }
  return data;
}
