// Deleting what the run created, newest first, each by uid (a precondition), then waiting until
// each is really gone: a Profile deleted in foreground disappears only after its namespace, and
// a Job after its pods. Clean-up never throws; what it could not remove is listed instead, and
// what is not gone yet is told as it changes, so that a caller forced to exit can say it.
import { isNotFound, sleep, type KubeClient, getOrUndefined } from '@kfx/kube-runtime/client';
import { messageOf } from '@kfx/kube-runtime/serving';
import { describeObject, type CreatedObject } from '../base/created-objects.js';
import { formatDuration } from '../base/duration.js';

export interface CleanupReport {
  /** `Job test-kubeflow/kfx-uat-abcde`, … */
  deleted: string[];
  /** What is still there, with the reason. */
  leftovers: string[];
}

export interface CleanupOptions {
  timeoutMs: number;
  onSaw?: ((saw: string) => void) | undefined;
  /** What is not known to be gone yet, each time that changes (for a caller that must exit). */
  onOutstanding?: ((objects: string[]) => void) | undefined;
}

/**
 * Namespaced objects are deleted and waited for before cluster-scoped ones: deleting the
 * namespace also deletes the RoleBinding that lets the runner see the objects inside it.
 */
export async function cleanUp(
  client: KubeClient,
  objects: readonly CreatedObject[],
  options: CleanupOptions,
): Promise<CleanupReport> {
  const deadline = Date.now() + options.timeoutMs;
  const failed = new Map<CreatedObject, string>();
  let outstanding = [...objects];
  const report = (still: readonly CreatedObject[]) => {
    outstanding = outstanding.filter((object) => failed.has(object) || still.includes(object));
    options.onOutstanding?.(outstanding.map(describeObject));
  };
  const remaining: CreatedObject[] = [];
  for (const phase of [
    objects.filter((object) => object.namespace !== undefined),
    objects.filter((object) => object.namespace === undefined),
  ]) {
    if (phase.length === 0) continue;
    for (const object of phase) {
      try {
        await client.delete(object.ref, object.name, {
          namespace: object.namespace,
          propagationPolicy: object.propagationPolicy,
          ...(object.uid ? { preconditions: { uid: object.uid } } : {}),
        });
      } catch (error) {
        // 409 on the uid precondition: the name now belongs to another object, which is not ours.
        if (!isNotFound(error) && !isConflictOnUid(error)) failed.set(object, messageOf(error));
      }
    }
    const left = await waitUntilGone(
      client,
      phase.filter((object) => !failed.has(object)),
      deadline,
      options,
      (still) => {
        report([...still, ...objects.filter((o) => !phase.includes(o))]);
      },
    );
    remaining.push(...left);
  }
  const leftovers = [
    ...[...failed].map(([object, why]) => `${describeObject(object)}: ${why}`),
    ...remaining.map(
      (object) =>
        `${describeObject(object)}: still there after ${formatDuration(options.timeoutMs)}`,
    ),
  ];
  const gone = objects.filter((object) => !failed.has(object) && !remaining.includes(object));
  return { deleted: gone.map(describeObject), leftovers };
}

/** Waits until each object is gone or the deadline passes; returns those still there. */
async function waitUntilGone(
  client: KubeClient,
  objects: readonly CreatedObject[],
  deadline: number,
  options: CleanupOptions,
  onStill: (still: readonly CreatedObject[]) => void,
): Promise<CreatedObject[]> {
  let remaining = [...objects];
  let lastSaw = '';
  for (;;) {
    const present = await Promise.all(remaining.map((object) => stillThere(client, object)));
    remaining = remaining.filter((_, i) => present[i]);
    onStill(remaining);
    if (remaining.length === 0 || Date.now() >= deadline) return remaining;
    const saw = `waiting for ${remaining.map(describeObject).join(', ')} to go`;
    if (saw !== lastSaw) options.onSaw?.(saw);
    lastSaw = saw;
    await sleep(Math.min(500, Math.max(0, deadline - Date.now())));
  }
}

async function stillThere(client: KubeClient, object: CreatedObject): Promise<boolean> {
  try {
    const live = await getOrUndefined(client, object.ref, object.name, {
      namespace: object.namespace,
    });
    return live !== undefined && (object.uid === undefined || live.metadata?.uid === object.uid);
  } catch {
    return true;
  }
}

function isConflictOnUid(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { status?: number }).status === 409 &&
    /precondition/i.test(messageOf(error))
  );
}
