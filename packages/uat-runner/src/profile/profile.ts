// The Kubeflow Profile a run uses (kubeflow.org/v1, cluster-scoped, its namespace has its name):
// created for the run, or an existing one reused — but only one the runner made for its runs.
// Profiles are self-serve (KFAM creates whatever body it gets), and a Profile's owner is admin of
// its namespace: a tenant who made the Profile of the run's name first would see the run's
// Secrets (proxy credentials, git tokens) and pods. So a Profile that exists is reused only when
// its owner is the run's and it carries the runner's label; the owner is what keeps the namespace
// out of a tenant's hands, the label keeps the runner out of Profiles people made by hand.
import {
  isAlreadyExists,
  resources,
  type KubeClient,
  type KubeObject,
  getOrUndefined,
} from '@kfx/kube-runtime/client';
import type { CreatedObjects } from '../base/created-objects.js';
import { formatDuration } from '../base/duration.js';
import { LABELS, MANAGED_BY, runAnnotations, runLabels } from '../base/names.js';
import { UatError } from '../base/outcome.js';
import { pollUntil } from '../base/poll.js';

export interface Profile extends KubeObject {
  spec?: {
    owner?: { kind?: string; name?: string; apiGroup?: string };
    resourceQuotaSpec?: unknown;
    plugins?: unknown[];
  };
  status?: { conditions?: { type?: string; status?: string; message?: string }[] };
}

export function profileObject(
  name: string,
  owner: string,
  runId: string,
  expires: string | undefined,
): Profile {
  return {
    apiVersion: 'kubeflow.org/v1',
    kind: 'Profile',
    metadata: { name, labels: runLabels(runId), ...runAnnotations(expires) },
    spec: { owner: { kind: 'User', name: owner } },
  };
}

export interface EnsureProfileOptions {
  client: KubeClient;
  name: string;
  owner: string;
  runId: string;
  /** When the run has ended for certain (`uat.kfx.dev/expires`); none for a kept run. */
  expires: string | undefined;
  created: CreatedObjects;
  /** How long a Profile being deleted (from an earlier run) may take to go. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  onSaw?: ((saw: string) => void) | undefined;
}

/** `User alice@example.com`, as a person reads a Profile's `spec.owner`. */
function describeOwner(profile: Profile): string {
  const owner = profile.spec?.owner;
  if (!owner?.name) return 'no one (spec.owner is empty)';
  return `${owner.kind ?? '(no kind)'} ${owner.name}`;
}

/**
 * Why the existing Profile may not be reused by a run whose owner is `owner`; undefined when it
 * may: its owner is `User <owner>` and it carries the runner's label.
 */
export function reuseRefusal(profile: Profile, owner: string): string | undefined {
  const name = profile.metadata?.name ?? '';
  const found = describeOwner(profile);
  const { kind, name: ownerName } = profile.spec?.owner ?? {};
  if (kind !== 'User' || ownerName !== owner) {
    return (
      `Profile ${name} is owned by ${found}, not by the run's owner User ${owner} (--owner): ` +
      'a run there would show that owner its Secrets and pods, so it is not reused; ' +
      'delete that Profile, or pass another --profile'
    );
  }
  if (profile.metadata?.labels?.[LABELS.managedBy] !== MANAGED_BY) {
    const label = `${LABELS.managedBy}=${MANAGED_BY}`;
    return (
      `Profile ${name} (owner ${found}) was not made by the UAT runner: it lacks the label ${label}, ` +
      `so it is not reused; label it so if it is meant for UAT runs (kubectl label profile ${name} ${label}), ` +
      'or pass another --profile'
    );
  }
  return undefined;
}

/**
 * Refuses (UatError) a Profile of that name that exists and may not be reused: checked before
 * the run touches its namespace at all (removing what dead runs left there binds the runner's
 * role in it). One being deleted passes: it is waited out, and whatever replaces it is checked
 * again when the run would reuse it.
 */
export async function checkExistingProfile(
  client: KubeClient,
  name: string,
  owner: string,
): Promise<void> {
  const live = await getOrUndefined<Profile>(client, resources.profiles, name);
  if (!live || live.metadata?.deletionTimestamp) return;
  const refusal = reuseRefusal(live, owner);
  if (refusal !== undefined) throw new UatError(refusal);
}

/**
 * The Profile to run in: an existing one is reused (and left in place at the end) when
 * `reuseRefusal` allows it, else the run ends with why; a missing one is created (and deleted at
 * the end). One that is being deleted is waited out, then created. A Profile that appears
 * between the look and the create (the create ends in AlreadyExists) is looked at again, and
 * checked like any other.
 */
export async function ensureProfile(
  options: EnsureProfileOptions,
): Promise<{ profile: Profile; created: boolean }> {
  const { client, name } = options;
  return pollUntil<{ profile: Profile; created: boolean }>(
    async () => {
      const live = await getOrUndefined<Profile>(client, resources.profiles, name);
      if (live?.metadata?.deletionTimestamp) {
        return { done: false, saw: `Profile ${name} is being deleted` };
      }
      if (live) {
        const refusal = reuseRefusal(live, options.owner);
        if (refusal !== undefined) throw new UatError(refusal);
        return { done: true, value: { profile: live, created: false } };
      }
      try {
        const profile = await client.create(
          resources.profiles,
          profileObject(name, options.owner, options.runId, options.expires),
        );
        options.created.add(resources.profiles, profile, 'Foreground');
        return { done: true, value: { profile, created: true } };
      } catch (error) {
        if (isAlreadyExists(error))
          return { done: false, saw: `Profile ${name} appeared meanwhile` };
        throw error;
      }
    },
    {
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      onSaw: options.onSaw,
      timeoutMessage: (saw) =>
        `Profile ${name} could not be created within ${formatDuration(options.timeoutMs)}: ${saw}`,
    },
  );
}
