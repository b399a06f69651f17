// A Pod's status, written back after every change as a kubelet's status manager does: one write at
// a time, each with the latest state (changes made while a write is on its way are in the next);
// a failed write is retried; a Pod gone from the API is written no more. Conditions keep their
// transition time while they hold.
import type { V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { ApiError, type Api } from './api.js';
import { podStatus, withTransitions, type PodState, type WireCondition } from './pod-status.js';

const RETRY_MS = 2000;

/** Returns `push`: schedules a write of the Pod's status from `state`. */
export function statusWriter(
  api: Api,
  pod: V1Pod,
  state: PodState,
  log: Logger,
): { push: () => void; flushed: () => Promise<void> } {
  const path = `/api/v1/namespaces/${pod.metadata?.namespace ?? 'default'}/pods/${pod.metadata?.name ?? ''}/status`;
  let writes = Promise.resolve();
  let pending = false;
  let gone = false;
  let conditions: WireCondition[] | undefined;
  const push = (): void => {
    if (pending) return; // the queued write will read the state as it is then
    pending = true;
    writes = writes.then(async () => {
      pending = false;
      if (gone) return;
      const status = withTransitions(podStatus(pod, state), conditions);
      try {
        await api.call('PATCH', path, { status }, 'application/merge-patch+json');
        conditions = status.conditions;
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) {
          gone = true;
          return;
        }
        log.warn({ err: error }, 'status update failed; retrying');
        setTimeout(push, RETRY_MS).unref();
      }
    });
  };
  return { push, flushed: () => writes };
}
