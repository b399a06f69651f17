// What a service-account token says about the Pod it is bound to: the `kubernetes.io` claim of
// a token the TokenRequest API made with a Pod as its bound object (as the kubelet's projected
// tokens and interLink's virtual kubelet make them). Unverified until the door has checked the
// signature (issuer-keys.ts).
import type { Jwt } from './jwt.js';

export interface PodBinding {
  namespace: string;
  serviceAccount: { name: string; uid: string };
  pod: { name: string; uid: string };
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;

/** The Pod binding of a token's claims, or undefined for a token bound to no Pod. */
export function podBinding(jwt: Jwt): PodBinding | undefined {
  const k8s = record(jwt.claims['kubernetes.io']);
  const pod = record(k8s?.pod);
  const account = record(k8s?.serviceaccount);
  const namespace = text(k8s?.namespace);
  const podName = text(pod?.name);
  const podUid = text(pod?.uid);
  const accountName = text(account?.name);
  const accountUid = text(account?.uid);
  if (
    namespace === undefined ||
    podName === undefined ||
    podUid === undefined ||
    accountName === undefined ||
    accountUid === undefined
  )
    return undefined;
  return {
    namespace,
    serviceAccount: { name: accountName, uid: accountUid },
    pod: { name: podName, uid: podUid },
  };
}

/** Whether a token's claims name a Pod at all (checked before anything is verified). */
export function namesAPod(jwt: Jwt): boolean {
  return record(record(jwt.claims['kubernetes.io'])?.pod) !== undefined;
}

/** Whether `jwt` is for one of `audiences` (its `aud`, a string or a list). */
export function forAudience(jwt: Jwt, audiences: readonly string[]): boolean {
  const aud = jwt.claims.aud;
  const list = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  return list.some((entry) => typeof entry === 'string' && audiences.includes(entry));
}
