// Writes the KfxReconciled condition to the Profile's status subresource when it changed. The
// patch carries the resourceVersion read, so a Profile that changed meanwhile gets a 409 and a
// retry instead of losing someone else's condition. Until the cache shows our own write, the
// same condition is not written twice.
import { resources, type KubeClient } from '@kfx/kube-runtime';
import type { Profile, ProfileCondition } from '../profile.js';
import {
  conditionFor,
  currentCondition,
  sameCondition,
  withCondition,
  type Outcome,
} from './status.js';

export class StatusWriter {
  /** Profile name → the condition last written, and the resourceVersion it was written over. */
  readonly #written = new Map<string, { over: string; condition: ProfileCondition }>();

  constructor(private readonly client: KubeClient) {}

  /** True when the condition changed (and was written). */
  async write(profile: Profile, outcome: Outcome, signal: AbortSignal): Promise<boolean> {
    const name = profile.metadata?.name ?? '';
    const resourceVersion = profile.metadata?.resourceVersion ?? '';
    const next = conditionFor(outcome, profile.metadata?.generation);
    if (sameCondition(currentCondition(profile), next)) {
      this.#written.delete(name);
      return false;
    }
    const pending = this.#written.get(name);
    if (pending?.over === resourceVersion && sameCondition(pending.condition, next)) return false;
    await this.client.patch<Profile>(
      resources.profiles,
      name,
      { metadata: { resourceVersion }, status: { conditions: withCondition(profile, next) } },
      { subresource: 'status', type: 'merge', signal },
    );
    this.#written.set(name, { over: resourceVersion, condition: next });
    return true;
  }

  forget(name: string): void {
    this.#written.delete(name);
  }
}
