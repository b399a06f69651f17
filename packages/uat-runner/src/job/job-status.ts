// What the Job and its pods say about the run, decided from their status alone (no API calls),
// so that every case — passed, failed with an exit code, stuck pulling an image — is one pure
// function with unit tests. The Job's conditions are the authority on the end; the pod explains.
// One exception: a pod whose suite container has ended while another container keeps running (a
// classic Istio sidecar, which never ends) is `lingering`, and the watcher ends the run on the
// container's exit code if it stays so (see `finishLingering`).
import type { V1ContainerStatus, V1Job, V1Pod } from '@kubernetes/client-node';
import { failingPull, permanentImageProblem } from './image-pull.js';

export type RunState =
  /**
   * `fatal`: no retry can fix it; the run ends with this one line. `pulling`: the image's pulls
   * fail for a reason that may heal; the run ends with this line if they go on failing.
   */
  | { phase: 'waiting'; saw: string; fatal?: string | undefined; pulling?: string | undefined }
  | { phase: 'running'; pod: string }
  | {
      phase: 'lingering';
      pod: string;
      exitCode: number;
      terminatedReason?: string | undefined;
      /** The containers still running. */
      running: string[];
    }
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
    const init = failedInit(pod);
    return {
      phase: 'finished',
      outcome: 'error',
      reason: init
        ? `the suite did not start: ${init}`
        : `the Job failed without a suite result: ${failed.reason ?? 'Failed'}${failed.message ? `: ${failed.message}` : ''}`,
      pod: podName,
    };
  }
  if (!pod || !podName) return { phase: 'waiting', saw: 'no pod yet' };
  const status = statusOf(pod, container);
  const ended = status?.state?.terminated;
  if (ended && pod.status?.phase === 'Running') {
    const running = (pod.status.containerStatuses ?? [])
      .filter((s) => s.name !== container && s.state?.running)
      .map((s) => s.name);
    if (running.length > 0) {
      return {
        phase: 'lingering',
        pod: podName,
        exitCode: ended.exitCode,
        terminatedReason: ended.reason,
        running,
      };
    }
  }
  if (status?.state?.running || ended || status?.started) {
    return { phase: 'running', pod: podName };
  }
  const init = failedInit(pod);
  if (init)
    return { phase: 'waiting', saw: `pod ${podName}: ${init}`, fatal: `pod ${podName}: ${init}` };
  const waiting = status?.state?.waiting;
  const phase = pod.status?.phase ?? 'Pending';
  if (waiting?.reason) {
    const message = waiting.message ? `: ${waiting.message}` : '';
    const image =
      pod.spec?.containers.find((c) => c.name === container)?.image ?? status?.image ?? '';
    const fatal = permanentImageProblem(image, waiting.reason, waiting.message);
    const pulling = fatal ? undefined : failingPull(image, waiting.reason, waiting.message);
    return {
      phase: 'waiting',
      saw: `pod ${podName} ${phase}, container ${container} waiting: ${waiting.reason}${message}`,
      ...(fatal ? { fatal } : {}),
      ...(pulling ? { pulling } : {}),
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

/** An init container that ended with an error, with what it said (its termination message). */
function failedInit(pod: V1Pod | undefined): string | undefined {
  const status = pod?.status?.initContainerStatuses?.find(
    (s) => (s.state?.terminated?.exitCode ?? 0) !== 0,
  );
  const terminated = status?.state?.terminated;
  if (!status || !terminated) return undefined;
  const said = terminated.message?.trim().split('\n').filter(Boolean).at(-1);
  return `init container ${status.name} exited with code ${terminated.exitCode}${said ? `: ${said}` : ''}`;
}

/** The end of a run whose pod kept running after the suite's container ended. */
export function finishLingering(
  state: Extract<RunState, { phase: 'lingering' }>,
  container: string,
  waitedMs: number,
): Extract<RunState, { phase: 'finished' }> {
  const seconds = Math.round(waitedMs / 1000);
  const why =
    `pod ${state.pod} kept running ${seconds} s after container ${container} ended ` +
    `(still running: ${state.running.join(', ')}; a sidecar that is not native?), so the run ends on its exit code`;
  if (state.terminatedReason === 'OOMKilled') {
    return {
      phase: 'finished',
      outcome: 'error',
      reason: `container ${container} was killed for using too much memory (OOMKilled, exit code ${state.exitCode}); ${why}`,
      pod: state.pod,
      exitCode: state.exitCode,
    };
  }
  return {
    phase: 'finished',
    outcome: state.exitCode === 0 ? 'passed' : 'failed',
    reason:
      state.exitCode === 0
        ? `the suite passed; ${why}`
        : `the suite failed: container ${container} exited with code ${state.exitCode}; ${why}`,
    pod: state.pod,
    exitCode: state.exitCode,
  };
}
