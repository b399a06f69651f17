// The Kubeflow Profile a run uses (kubeflow.org/v1, cluster-scoped, its namespace has its name):
// created for the run, or an existing one reused.
import {
  isAlreadyExists,
  resources,
  type KubeClient,
  type KubeObject,
  getOrUndefined,
} from '@kfx/kube-runtime';
import type { CreatedObjects } from './created-objects.js';
import { formatDuration } from './duration.js';
import { runAnnotations, runLabels } from './names.js';
import { pollUntil } from './poll.js';

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

/**
 * The Profile to run in: an existing one is reused (and left in place at the end); a missing one
 * is created (and deleted at the end). One that is being deleted is waited out, then created.
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
      if (live) return { done: true, value: { profile: live, created: false } };
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
