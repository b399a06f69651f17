// The coordination.k8s.io/v1 Lease and the compare-and-swap on it that leader election needs.
// The Lease is typed as it is on the wire: client-node's V1Lease types its times as Date, but
// plain JSON holds RFC 3339 strings with microseconds.
import type { KubeClient } from '../client/client.js';
import { isAlreadyExists, isConflict, isNotFound } from '../client/errors.js';
import type { Logger } from '../logger.js';
import { resources, type KubeObject } from '../client/resources.js';

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

export interface LeaseLockOptions {
  client: KubeClient;
  namespace: string;
  name: string;
  identity: string;
  logger: Logger;
  /** Told whenever the holder seen on the Lease changes (undefined: released). */
  onHolder: (holder: string | undefined) => void;
}

/**
 * One candidate's view of a Lease. It remembers when the record last changed on its own clock:
 * a holder whose record has not changed for its lease duration is gone.
 */
export class LeaseLock {
  #observed = '';
  #observedAt = 0;
  #holder: string | undefined;

  constructor(private readonly o: LeaseLockOptions) {}

  /** The holder last seen. */
  get holder(): string | undefined {
    return this.#holder;
  }

  /** Takes the Lease if it is free or expired, renews it if held; false if another holds it. */
  async tryAcquireOrRenew(leaseDurationSeconds: number, signal: AbortSignal): Promise<boolean> {
    const { client, namespace, name, identity } = this.o;
    const now = microTime();
    try {
      let lease: Lease;
      try {
        lease = await client.get<Lease>(resources.leases, name, { namespace, signal });
      } catch (error) {
        if (!isNotFound(error)) throw error;
        const spec = {
          holderIdentity: identity,
          leaseDurationSeconds,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: 0,
        };
        const metadata = { name, namespace };
        await client.create<Lease>(
          resources.leases,
          { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata, spec },
          { signal },
        );
        this.#observe(spec);
        return true;
      }
      const spec = lease.spec ?? {};
      this.#observe(spec);
      const holder = spec.holderIdentity ?? '';
      const durationMs = (spec.leaseDurationSeconds ?? leaseDurationSeconds) * 1000;
      if (holder !== '' && holder !== identity && Date.now() < this.#observedAt + durationMs)
        return false;
      const mine = holder === identity;
      const transitions = spec.leaseTransitions ?? 0;
      const next = {
        holderIdentity: identity,
        leaseDurationSeconds,
        acquireTime: mine ? spec.acquireTime : now,
        renewTime: now,
        leaseTransitions: mine ? transitions : transitions + 1,
      };
      // The resourceVersion makes this a compare-and-swap: of two racing candidates one gets 409.
      await client.replace<Lease>(resources.leases, { ...lease, spec: next }, { signal });
      this.#observe(next);
      return true;
    } catch (error) {
      if (signal.aborted) return false;
      if (isConflict(error) || isAlreadyExists(error))
        this.o.logger.debug('lost a race for the lease');
      else this.o.logger.warn({ err: error }, 'could not read or write the lease');
      return false;
    }
  }

  /** Empties the holder so that a standby need not wait for the Lease to expire. */
  async release(signal: AbortSignal): Promise<void> {
    const { client, namespace, name, identity } = this.o;
    try {
      const lease = await client.get<Lease>(resources.leases, name, { namespace, signal });
      if (lease.spec?.holderIdentity !== identity) return;
      const now = microTime();
      const spec = {
        ...lease.spec,
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
      };
      await client.replace<Lease>(resources.leases, { ...lease, spec }, { signal });
      this.#observe(spec);
    } catch (error) {
      this.o.logger.warn(
        { err: error },
        'could not release the lease; standbys will wait for it to expire',
      );
    }
  }

  #observe(spec: LeaseSpec): void {
    const record = JSON.stringify([
      spec.holderIdentity ?? '',
      spec.renewTime ?? '',
      spec.leaseDurationSeconds ?? 0,
    ]);
    if (record === this.#observed) return;
    this.#observed = record;
    this.#observedAt = Date.now();
    // A released Lease has an empty holder.
    const holder = spec.holderIdentity === '' ? undefined : spec.holderIdentity;
    if (holder !== this.#holder) {
      this.#holder = holder;
      this.o.onHolder(holder);
    }
  }
}
