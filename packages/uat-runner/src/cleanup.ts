// Deleting what the run created, newest first, each by uid (a precondition), then waiting until
// each is really gone: a Profile deleted in foreground disappears only after its namespace, and
// a Job after its pods. Clean-up never throws; what it could not remove is listed instead.
import { isNotFound, sleep, type KubeClient } from '@kfx/kube-runtime';
import { describeObject, type CreatedObject } from './created-objects.js';
import { formatDuration } from './duration.js';
import { getOrUndefined } from './get-or-undefined.js';
import { errorMessage } from './outcome.js';

export interface CleanupReport {
  /** `Job test-kubeflow/kfx-uat-abcde`, … */
  deleted: string[];
  /** What is still there, with the reason. */
  leftovers: string[];
}

export async function cleanUp(
  client: KubeClient,
  objects: readonly CreatedObject[],
  options: { timeoutMs: number; onSaw?: ((saw: string) => void) | undefined },
): Promise<CleanupReport> {
  const failed = new Map<CreatedObject, string>();
  for (const object of objects) {
    try {
      await client.delete(object.ref, object.name, {
        namespace: object.namespace,
        propagationPolicy: object.propagationPolicy,
        ...(object.uid ? { preconditions: { uid: object.uid } } : {}),
      });
    } catch (error) {
      // 409 on the uid precondition: the name now belongs to another object, which is not ours.
      if (!isNotFound(error) && !isConflictOnUid(error)) failed.set(object, errorMessage(error));
    }
  }
  const deadline = Date.now() + options.timeoutMs;
  let remaining = objects.filter((object) => !failed.has(object));
  let lastSaw = '';
  while (remaining.length > 0 && Date.now() < deadline) {
    const present = await Promise.all(remaining.map((object) => stillThere(client, object)));
    remaining = remaining.filter((_, i) => present[i]);
    if (remaining.length === 0) break;
    const saw = `waiting for ${remaining.map(describeObject).join(', ')} to go`;
    if (saw !== lastSaw) options.onSaw?.(saw);
    lastSaw = saw;
    await sleep(Math.min(500, Math.max(0, deadline - Date.now())));
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

async function stillThere(client: KubeClient, object: CreatedObject): Promise<boolean> {
  try {
    const live = await getOrUndefined(client, object.ref, object.name, object.namespace);
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
    /precondition/i.test(errorMessage(error))
  );
}
