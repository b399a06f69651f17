import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { podStatus, withTransitions, type ContainerState, type PodState } from './pod-status.js';

const pod: V1Pod = {
  metadata: { name: 'p', namespace: 'default', uid: 'u' },
  spec: {
    initContainers: [{ name: 'init', image: 'i' }],
    containers: [
      { name: 'a', image: 'i' },
      { name: 'b', image: 'i' },
    ],
  },
};
const at = '2024-01-01T00:00:00Z';
const done = (exitCode: number): ContainerState => ({
  state: 'terminated',
  exitCode,
  reason: exitCode === 0 ? 'Completed' : 'Error',
  startedAt: at,
  finishedAt: at,
});
const running: ContainerState = { state: 'running', startedAt: at };
const state = (init: ContainerState[], containers: ContainerState[]): PodState => ({
  init: new Map(init.map((c) => ['init', c])),
  containers: new Map(containers.map((c, i) => [i === 0 ? 'a' : 'b', c])),
  startTime: at,
  podIp: '10.234.0.2',
});
const condition = (s: ReturnType<typeof podStatus>, type: string) =>
  s.conditions.find((c) => c.type === type)?.status;

describe('a remote Pod’s status', () => {
  it('is Pending until its containers run, then Running and Ready', () => {
    const pending = podStatus(pod, state([running], []));
    expect(pending.phase).toBe('Pending');
    expect(condition(pending, 'Initialized')).toBe('False');
    expect(pending.containerStatuses.map((c) => Object.keys(c.state)[0])).toEqual([
      'waiting',
      'waiting',
    ]);
    const up = podStatus(pod, state([done(0)], [running, running]));
    expect(up.phase).toBe('Running');
    expect(up.podIP).toBe('10.234.0.2');
    expect(
      ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((t) => condition(up, t)),
    ).toEqual(['True', 'True', 'True', 'True']);
    expect(up.containerStatuses[0]).toMatchObject({ ready: true, started: true, restartCount: 0 });
  });

  it('ends Succeeded when every container exited 0, Failed otherwise or when init failed', () => {
    expect(podStatus(pod, state([done(0)], [done(0), running])).phase).toBe('Running');
    expect(podStatus(pod, state([done(0)], [done(0), done(0)])).phase).toBe('Succeeded');
    const failed = podStatus(pod, state([done(0)], [done(0), done(3)]));
    expect(failed.phase).toBe('Failed');
    expect(failed.containerStatuses[1]?.state).toMatchObject({
      terminated: { exitCode: 3, reason: 'Error' },
    });
    expect(condition(failed, 'Ready')).toBe('False');
    expect(podStatus(pod, state([done(1)], [])).phase).toBe('Failed');
  });

  it('keeps a condition’s transition time while it holds', () => {
    const first = withTransitions(podStatus(pod, state([done(0)], [running, running])), [
      { type: 'Ready', status: 'True', lastTransitionTime: at },
      { type: 'Initialized', status: 'False', lastTransitionTime: at },
    ]);
    expect(first.conditions.find((c) => c.type === 'Ready')?.lastTransitionTime).toBe(at);
    expect(first.conditions.find((c) => c.type === 'Initialized')?.lastTransitionTime).not.toBe(at);
  });
});
