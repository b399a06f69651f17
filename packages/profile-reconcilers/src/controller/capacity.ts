// How many Profiles one controller reconciles: as many as its heap holds. Past that, a cluster
// with more Profiles would make it run out of memory, be restarted, list everything again and
// run out again, reconciling none. So the first `maxProfiles` by creation (then name) are
// reconciled and the others wait, each with a condition that says why and what to do (a higher
// memory limit, or shards by profileSelector), counted in `kfx_profile_controller_profiles
// {state="waiting"}` beside `kfx_profile_controller_capacity_profiles`.
import { getHeapStatistics } from 'node:v8';
import type { ReadonlyStore } from '@kfx/kube-runtime/informer';
import type { Profile } from '../profile.js';

/** What the heap holds before any Profile: code, the runtime's own state (measured 22-25 MiB). */
const BASELINE_BYTES = 32 * 1024 * 1024;
/**
 * What one Profile costs in the heap, with room for the collector: its cached Profile and
 * namespace and the skeletons of about eight objects, measured at 8.7 KiB live, times 1.6.
 */
export const BYTES_PER_PROFILE = 14 * 1024;

/** The Profiles a heap of `heapLimit` bytes holds. */
export function profilesHeld(heapLimit = getHeapStatistics().heap_size_limit): number {
  return Math.max(1, Math.floor((heapLimit - BASELINE_BYTES) / BYTES_PER_PROFILE));
}

/** RFC 3339 text, as the API sends it (and the cache keeps it): it sorts by time. */
const createdAt = (p: Profile): string => {
  const at = p.metadata?.creationTimestamp;
  return typeof at === 'string' ? at : '';
};

const byAge = (a: Profile, b: Profile): number => {
  const at = createdAt(a);
  const bt = createdAt(b);
  if (at !== bt) return at < bt ? -1 : 1;
  const an = a.metadata?.name ?? '';
  const bn = b.metadata?.name ?? '';
  return an < bn ? -1 : an > bn ? 1 : 0;
};

export class Capacity {
  readonly max: number;
  readonly #profiles: ReadonlyStore<Profile>;
  /** The names reconciled while over capacity; undefined until needed (or after a change). */
  #admitted: Set<string> | undefined;

  constructor(profiles: ReadonlyStore<Profile>, max: number) {
    this.#profiles = profiles;
    this.max = max;
  }

  /** The set of Profiles changed: who is admitted is worked out again when next asked. */
  changed(): void {
    this.#admitted = undefined;
  }

  get full(): boolean {
    return this.#profiles.size > this.max;
  }

  /** Whether this Profile is among those reconciled. */
  admits(name: string): boolean {
    if (!this.full) return true;
    this.#admitted ??= new Set(
      this.#profiles
        .list()
        .sort(byAge)
        .slice(0, this.max)
        .map((p) => p.metadata?.name ?? ''),
    );
    return this.#admitted.has(name);
  }

  /** Why a Profile waits, for its condition. */
  message(): string {
    return `kfx-controller reconciles at most ${this.max} Profiles (maxProfiles: what its memory limit holds), and ${this.#profiles.size} exist: the oldest ${this.max} are reconciled and this one waits. Raise the memory limit, or share the Profiles among releases with profileSelector`;
  }
}
