// What the Job and its pods say about the run, decided from their status alone (no API calls),
// so that every case — passed, failed with an exit code, stuck pulling an image — is one pure
// function with unit tests. The Job's conditions are the authority on the end; the pod explains.
import type { V1ContainerStatus, V1Job, V1Pod } from '@kubernetes/client-node';
import { permanentImageProblem } from './image-pull.js';

export type RunState =
  /** `fatal`: no retry can fix it; the run ends with this one line. */
  | { phase: 'waiting'; saw: string; fatal?: string | undefined }
  | { phase: 'running'; pod: string }
  | {
      phase: 'finished';
      outcome: 'passed' | 'failed' | 'error';
      reason: string;
      pod?: string | undefined;
      exitCode?: number | undefined;
    };

const conditionTrue = (job: V1Job, types: readonly string[]) =>
  job.status?.conditions?.find((c) => types.includes(c.type) && c.status === 'True');

function newest(pods: readonly V1Pod[]): V1Pod | undefined {
  const stamp = (pod: V1Pod) => String(pod.metadata?.creationTimestamp ?? '');
  return [...pods].sort((a, b) => stamp(a).localeCompare(stamp(b))).at(-1);
}

const statusOf = (pod: V1Pod | undefined, container: string): V1ContainerStatus | undefined =>
  pod?.status?.containerStatuses?.find((s) => s.name === container);

export function assessRun(
  job: V1Job | undefined,
  pods: readonly V1Pod[],
  container: string,
): RunState {
  const pod = newest(pods);
  const podName = pod?.metadata?.name;
  if (job && conditionTrue(job, ['Complete', 'SuccessCriteriaMet'])) {
    return {
      phase: 'finished',
      outcome: 'passed',
      reason: 'the suite passed',
      pod: podName,
      exitCode: 0,
    };
  }
  const failed = job && conditionTrue(job, ['Failed', 'FailureTarget']);
  if (failed) {
    if (failed.reason === 'DeadlineExceeded') {
      return {
        phase: 'finished',
        outcome: 'error',
        reason: `the Job ran past its deadline (activeDeadlineSeconds ${job.spec?.activeDeadlineSeconds ?? '?'})`,
        pod: podName,
      };
    }
    const exited = [...pods]
      .reverse()
      .map((p) => ({ pod: p, terminated: statusOf(p, container)?.state?.terminated }))
      .find((x) => x.terminated && x.terminated.exitCode !== 0);
    if (exited?.terminated) {
      const { exitCode, reason } = exited.terminated;
      const name = exited.pod.metadata?.name;
      if (reason === 'OOMKilled') {
        return {
          phase: 'finished',
          outcome: 'error',
          reason: `container ${container} was killed for using too much memory (OOMKilled, exit code ${exitCode})`,
          pod: name,
          exitCode,
        };
      }
      return {
        phase: 'finished',
        outcome: 'failed',
        reason: `the suite failed: container ${container} exited with code ${exitCode}`,
        pod: name,
        exitCode,
      };
    }
    return {
      phase: 'finished',
      outcome: 'error',
      reason: `the Job failed without a suite result: ${failed.reason ?? 'Failed'}${failed.message ? `: ${failed.message}` : ''}`,
      pod: podName,
    };
  }
  if (!pod || !podName) return { phase: 'waiting', saw: 'no pod yet' };
  const status = statusOf(pod, container);
  if (status?.state?.running || status?.state?.terminated || status?.started) {
    return { phase: 'running', pod: podName };
  }
  const waiting = status?.state?.waiting;
  const phase = pod.status?.phase ?? 'Pending';
  if (waiting?.reason) {
    const message = waiting.message ? `: ${waiting.message}` : '';
    const image =
      pod.spec?.containers.find((c) => c.name === container)?.image ?? status?.image ?? '';
    const fatal = permanentImageProblem(image, waiting.reason, waiting.message);
    return {
      phase: 'waiting',
      saw: `pod ${podName} ${phase}, container ${container} waiting: ${waiting.reason}${message}`,
      ...(fatal ? { fatal } : {}),
    };
  }
  const unscheduled = pod.status?.conditions?.find(
    (c) => c.type === 'PodScheduled' && c.status === 'False',
  );
  if (unscheduled) {
    return {
      phase: 'waiting',
      saw: `pod ${podName} not scheduled: ${unscheduled.reason ?? ''}${unscheduled.message ? `: ${unscheduled.message}` : ''}`,
    };
  }
  return { phase: 'waiting', saw: `pod ${podName} ${phase}` };
}
