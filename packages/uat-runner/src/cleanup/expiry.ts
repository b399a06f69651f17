// When a run is dead for certain. A run's every wait has a limit (the Profile, its namespace, the
// suite, the clean-up), so the time by which it has ended — finished, crashed or killed — is known
// when it starts; its objects carry that time (`uat.kfx.dev/expires`). A later run or `kfx uat
// clean` removes objects only of runs past that time, or of the one run it is told to remove, so
// it never pulls the namespace from under a run that is still going on in another CI job.
import type { KubeObject } from '@kfx/kube-runtime/client';
import { formatDuration } from '../base/duration.js';
import { ANNOTATIONS, LABELS, MANAGED_BY } from '../base/names.js';

/**
 * Added to the sum of a run's limits: API calls, reading the rest of the log and writing the
 * results take time the limits do not count, and the clocks of a CI machine and of the one that
 * cleans up later may differ by some minutes.
 */
export const EXPIRY_SLACK_MS = 15 * 60_000;

export interface RunLimits {
  profileTimeoutMs: number;
  timeoutMs: number;
  cleanupTimeoutMs: number;
}

/**
 * The latest a run started at `startedAt` can still be alive: what dead runs left removed (up to
 * the clean-up timeout), a Profile being deleted waited out and the namespace waited for (each up
 * to the profile timeout), the suite, its own clean-up.
 */
export function runExpiresAt(startedAt: Date, limits: RunLimits): Date {
  const total =
    2 * limits.profileTimeoutMs + limits.timeoutMs + 2 * limits.cleanupTimeoutMs + EXPIRY_SLACK_MS;
  return new Date(startedAt.getTime() + total);
}

export interface RunVerdict {
  runId: string;
  dead: boolean;
  /** Why, for a person: `its deadline passed 3m ago`, `it may still be running (until …)`. */
  why: string;
}

/**
 * What an object says of the run that made it; undefined when no run made it (no kfx-uat labels).
 * With `runId`, that run is dead (the caller knows it) and every other one is left alone.
 */
export function judgeRun(object: KubeObject, now: Date, runId?: string): RunVerdict | undefined {
  const labels = object.metadata?.labels ?? {};
  const owner = labels[LABELS.runId];
  if (labels[LABELS.managedBy] !== MANAGED_BY || !owner) return undefined;
  if (runId !== undefined) {
    return owner === runId
      ? { runId: owner, dead: true, why: 'named with --run-id' }
      : { runId: owner, dead: false, why: 'another run than --run-id names' };
  }
  const expires = object.metadata?.annotations?.[ANNOTATIONS.expires];
  if (expires === undefined) {
    return { runId: owner, dead: false, why: 'kept on purpose (--keep); only --run-id removes it' };
  }
  const at = Date.parse(expires);
  if (Number.isNaN(at)) {
    return { runId: owner, dead: false, why: `${ANNOTATIONS.expires} "${expires}" is no time` };
  }
  return at <= now.getTime()
    ? {
        runId: owner,
        dead: true,
        why: `its deadline passed ${formatDuration(now.getTime() - at)} ago`,
      }
    : { runId: owner, dead: false, why: `it may still be running (until ${expires})` };
}
