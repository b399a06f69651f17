// The controller's own metrics, on the registry it was given: how many Profiles are in each
// state (alert on `failed`), and the writes it made, by kind and action (`adopted`: an object
// someone else made, such as the upstream controller, taken over).
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ProfileState } from './status.js';

const STATES: readonly ProfileState[] = ['reconciled', 'warnings', 'failed', 'waiting', 'refused'];

export class ControllerMetrics {
  readonly #profiles: Gauge<'state'>;
  readonly #writes: Counter<'kind' | 'action'>;
  readonly #states = new Map<string, ProfileState>();
  readonly #capacity: Gauge;

  constructor(registry: Registry) {
    this.#profiles =
      (registry.getSingleMetric('kfx_profile_controller_profiles') as Gauge<'state'> | undefined) ??
      new Gauge({
        name: 'kfx_profile_controller_profiles',
        help: 'Profiles by the state of their last reconcile: reconciled, warnings, failed, waiting, refused',
        labelNames: ['state'],
        registers: [registry],
      });
    this.#writes =
      (registry.getSingleMetric('kfx_profile_controller_object_writes_total') as
        Counter<'kind' | 'action'> | undefined) ??
      new Counter({
        name: 'kfx_profile_controller_object_writes_total',
        help: 'Objects written for Profiles, by kind and action: created, adopted (it existed before kfx first applied it), updated, recreated, deleted',
        labelNames: ['kind', 'action'],
        registers: [registry],
      });
    this.#capacity =
      (registry.getSingleMetric('kfx_profile_controller_capacity_profiles') as Gauge | undefined) ??
      new Gauge({
        name: 'kfx_profile_controller_capacity_profiles',
        help: 'Profiles this controller reconciles at most (maxProfiles); the others wait',
        registers: [registry],
      });
    for (const state of STATES) this.#profiles.set({ state }, 0);
  }

  setCapacity(profiles: number): void {
    this.#capacity.set(profiles);
  }

  setState(profile: string, state: ProfileState | undefined): void {
    const previous = this.#states.get(profile);
    if (previous === state) return;
    if (previous !== undefined) this.#profiles.dec({ state: previous });
    if (state === undefined) {
      this.#states.delete(profile);
      return;
    }
    this.#states.set(profile, state);
    this.#profiles.inc({ state });
  }

  /** Forgets every Profile's state: a replica that stopped leading reports none. */
  clear(): void {
    this.#states.clear();
    for (const state of STATES) this.#profiles.set({ state }, 0);
  }

  wrote(kind: string, action: string): void {
    this.#writes.inc({ kind, action });
  }
}
