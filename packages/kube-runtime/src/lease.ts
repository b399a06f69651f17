// The coordination.k8s.io/v1 Lease as it is on the wire (client-node's V1Lease types its times
// as Date, but plain JSON holds RFC 3339 strings with microseconds).
import type { KubeObject } from './resources.js';

export interface LeaseSpec {
  holderIdentity?: string | undefined;
  leaseDurationSeconds?: number | undefined;
  acquireTime?: string | undefined;
  renewTime?: string | undefined;
  leaseTransitions?: number | undefined;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec | undefined;
}

/** Kubernetes MicroTime: RFC 3339 with six fractional digits. */
export function microTime(date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** What a candidate watches change to know the holder is alive. */
export function leaseRecord(spec: LeaseSpec | undefined): string {
  return JSON.stringify([
    spec?.holderIdentity ?? '',
    spec?.renewTime ?? '',
    spec?.leaseDurationSeconds ?? 0,
  ]);
}
