// A Pod's status as a kubelet reports it, from what the remote node knows of its containers:
// Pending while they are made, Running once they run (Ready: no probes here), then Succeeded
// when every container exited 0, Failed otherwise or when an init container failed. Nothing is
// restarted, whatever the restartPolicy.
import type { V1Pod } from '@kubernetes/client-node';

export type ContainerState =
  | { state: 'waiting'; reason: string; message?: string | undefined }
  | { state: 'running'; startedAt: string }
  | {
      state: 'terminated';
      exitCode: number;
      reason: string;
      startedAt: string;
      finishedAt: string;
      signal?: string | undefined;
      /** Why it could not start. */
      message?: string | undefined;
    };

// The status as the wire has it: times are RFC 3339 strings (the client's models say Date).
export interface WireCondition {
  type: string;
  status: 'True' | 'False';
  reason?: string;
  lastTransitionTime?: string;
}

type WireState =
  | { waiting: { reason: string; message?: string } }
  | { running: { startedAt: string } }
  | {
      terminated: {
        exitCode: number;
        reason: string;
        message?: string;
        startedAt: string;
        finishedAt: string;
        containerID: string;
      };
    };

interface WireContainerStatus {
  name: string;
  image: string;
  imageID: string;
  containerID?: string;
  ready: boolean;
  started: boolean;
  restartCount: number;
  state: WireState;
}

export interface WirePodStatus {
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  conditions: WireCondition[];
  hostIP: string;
  hostIPs: { ip: string }[];
  podIP: string;
  podIPs: { ip: string }[];
  startTime: string;
  initContainerStatuses?: WireContainerStatus[];
  containerStatuses: WireContainerStatus[];
}

export interface PodState {
  init: Map<string, ContainerState>;
  containers: Map<string, ContainerState>;
  startTime: string;
  podIp: string;
  /** Why the Pod cannot start at all (a volume, an image), shown on every waiting container. */
  problem?: { reason: string; message: string } | undefined;
}

/** Now, as the API writes times (seconds). */
export const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

function stateOf(c: ContainerState, containerId: string): WireState {
  if (c.state === 'waiting') {
    return { waiting: { reason: c.reason, ...(c.message ? { message: c.message } : {}) } };
  }
  if (c.state === 'running') return { running: { startedAt: c.startedAt } };
  const { exitCode, reason, startedAt, finishedAt } = c;
  const text = c.message ?? (c.signal ? `killed by ${c.signal}` : undefined);
  const message = text ? { message: text } : {};
  return {
    terminated: { exitCode, reason, ...message, startedAt, finishedAt, containerID: containerId },
  };
}

function statuses(pod: V1Pod, which: 'init' | 'containers', states: Map<string, ContainerState>) {
  const specs = (which === 'init' ? pod.spec?.initContainers : pod.spec?.containers) ?? [];
  return specs.map((spec): WireContainerStatus => {
    const c = states.get(spec.name) ?? {
      state: 'waiting',
      reason: which === 'init' ? 'PodInitializing' : 'ContainerCreating',
    };
    const containerId = `kfx-remote://${pod.metadata?.uid ?? ''}/${spec.name}`;
    const done = c.state === 'terminated' && c.exitCode === 0;
    return {
      name: spec.name,
      image: spec.image ?? '',
      imageID: '',
      ...(c.state === 'waiting' ? {} : { containerID: containerId }),
      ready: which === 'init' ? done : c.state === 'running',
      started: c.state === 'running',
      restartCount: 0,
      state: stateOf(c, containerId),
    };
  });
}

const condition = (type: string, ok: boolean, reason?: string): WireCondition => ({
  type,
  status: ok ? 'True' : 'False',
  ...(ok || !reason ? {} : { reason }),
});

export function podStatus(pod: V1Pod, state: PodState): WirePodStatus {
  const init = [...state.init.values()];
  const main = [...state.containers.values()];
  const specs = pod.spec?.containers ?? [];
  const initCount = pod.spec?.initContainers?.length ?? 0;
  const failed = (c: ContainerState) => c.state === 'terminated' && c.exitCode !== 0;
  const initFailed = init.some(failed);
  const initialized =
    init.length === initCount && init.every((c) => c.state === 'terminated' && c.exitCode === 0);
  const ended = main.length === specs.length && main.every((c) => c.state === 'terminated');
  const running = main.length === specs.length && main.every((c) => c.state === 'running');
  const phase: WirePodStatus['phase'] = initFailed
    ? 'Failed'
    : ended
      ? main.some(failed)
        ? 'Failed'
        : 'Succeeded'
      : main.some((c) => c.state !== 'waiting')
        ? 'Running'
        : 'Pending';
  const terminal = phase === 'Succeeded' || phase === 'Failed';
  const notReady = terminal ? 'PodCompleted' : 'ContainersNotReady';
  return {
    phase,
    conditions: [
      condition('PodReadyToStartContainers', !state.problem || initialized),
      condition('Initialized', initialized, 'ContainersNotInitialized'),
      condition('Ready', running, notReady),
      condition('ContainersReady', running, notReady),
      condition('PodScheduled', true),
    ],
    hostIP: state.podIp,
    hostIPs: [{ ip: state.podIp }],
    podIP: state.podIp,
    podIPs: [{ ip: state.podIp }],
    startTime: state.startTime,
    ...(initCount > 0 ? { initContainerStatuses: statuses(pod, 'init', state.init) } : {}),
    containerStatuses: statuses(pod, 'containers', state.containers),
  };
}

/** Keeps each condition's lastTransitionTime while its status stays the same. */
export function withTransitions(
  status: WirePodStatus,
  previous: readonly WireCondition[] | undefined,
): WirePodStatus {
  const at = now();
  return {
    ...status,
    conditions: status.conditions.map((c) => {
      const before = previous?.find((p) => p.type === c.type);
      const since = before?.status === c.status ? before.lastTransitionTime : undefined;
      return { ...c, lastTransitionTime: since ?? at };
    }),
  };
}
