import type { V1Job, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { assessRun, finishLingering } from './job-status.js';

const job = (condition?: { type: string; reason?: string; message?: string }): V1Job => ({
  metadata: { name: 'kfx-uat-abcde' },
  spec: { activeDeadlineSeconds: 60, template: {} },
  status: condition ? { conditions: [{ status: 'True', ...condition }] } : {},
});

const pod = (name: string, created: string, status: V1Pod['status']): V1Pod =>
  ({ metadata: { name, creationTimestamp: created }, status }) as unknown as V1Pod;

const terminated = (exitCode: number, reason = 'Error'): V1Pod['status'] => ({
  phase: exitCode === 0 ? 'Succeeded' : 'Failed',
  containerStatuses: [
    {
      name: 'suite',
      image: 'x',
      imageID: '',
      ready: false,
      restartCount: 0,
      state: { terminated: { exitCode, reason } },
    },
  ],
});

const waiting = (reason: string, message?: string): V1Pod['status'] => ({
  phase: 'Pending',
  containerStatuses: [
    {
      name: 'suite',
      image: 'x',
      imageID: '',
      ready: false,
      restartCount: 0,
      state: { waiting: { reason, ...(message ? { message } : {}) } },
    },
  ],
});

describe('assessRun', () => {
  it('passes when the Job completes', () => {
    const state = assessRun(job({ type: 'Complete' }), [pod('p', '1', terminated(0))], 'suite');
    expect(state).toMatchObject({ phase: 'finished', outcome: 'passed', pod: 'p', exitCode: 0 });
  });

  it('reports a test failure with the exit code of the newest failed pod', () => {
    const pods = [
      pod('old', '2026-01-01T00:00:01Z', terminated(2)),
      pod('new', '2026-01-01T00:00:02Z', terminated(5)),
    ];
    expect(
      assessRun(job({ type: 'Failed', reason: 'BackoffLimitExceeded' }), pods, 'suite'),
    ).toEqual({
      phase: 'finished',
      outcome: 'failed',
      reason: 'the suite failed: container suite exited with code 5',
      pod: 'new',
      exitCode: 5,
    });
  });

  it('decides as soon as the Job has a FailureTarget condition', () => {
    const state = assessRun(
      job({ type: 'FailureTarget' }),
      [pod('p', '1', terminated(1))],
      'suite',
    );
    expect(state).toMatchObject({ phase: 'finished', outcome: 'failed', exitCode: 1 });
  });

  it('calls a deadline, an OOM kill or a failure without exit code an infrastructure error', () => {
    expect(
      assessRun(job({ type: 'Failed', reason: 'DeadlineExceeded' }), [], 'suite'),
    ).toMatchObject({
      outcome: 'error',
      reason: 'the Job ran past its deadline (activeDeadlineSeconds 60)',
    });
    expect(
      assessRun(job({ type: 'Failed' }), [pod('p', '1', terminated(137, 'OOMKilled'))], 'suite'),
    ).toMatchObject({
      outcome: 'error',
      exitCode: 137,
    });
    expect(
      assessRun(
        job({ type: 'Failed', reason: 'PodFailurePolicy', message: 'evicted' }),
        [],
        'suite',
      ),
    ).toMatchObject({
      outcome: 'error',
      reason: 'the Job failed without a suite result: PodFailurePolicy: evicted',
    });
  });

  it('is running once the main container started, even if the Job has not caught up', () => {
    expect(assessRun(job(), [pod('p', '1', terminated(0))], 'suite')).toEqual({
      phase: 'running',
      pod: 'p',
    });
  });

  it('says what it waits for', () => {
    expect(assessRun(job(), [], 'suite')).toEqual({ phase: 'waiting', saw: 'no pod yet' });
    expect(
      assessRun(job(), [pod('p', '1', waiting('ErrImagePull', 'dial tcp: i/o timeout'))], 'suite'),
    ).toEqual({
      phase: 'waiting',
      saw: 'pod p Pending, container suite waiting: ErrImagePull: dial tcp: i/o timeout',
      // A registry out of reach may come back: failing, not fatal (yet).
      pulling: expect.stringMatching(
        /^image ".*" cannot be pulled \(ErrImagePull: dial tcp: i\/o timeout\)$/,
      ) as unknown,
    });
    const unschedulable = pod('p', '1', {
      phase: 'Pending',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'Unschedulable',
          message: '0/3 nodes are available',
        },
      ],
    });
    expect(assessRun(job(), [unschedulable], 'suite')).toEqual({
      phase: 'waiting',
      saw: 'pod p not scheduled: Unschedulable: 0/3 nodes are available',
    });
  });

  it('gives up at once on an image name that can never work', () => {
    expect(assessRun(job(), [pod('p', '1', waiting('InvalidImageName'))], 'suite')).toMatchObject({
      fatal: 'image "x" is not a valid image reference (InvalidImageName)',
    });
  });

  it('gives up at once on an image the registry says is missing or forbidden, naming it', () => {
    const withImage = (status: V1Pod['status']): V1Pod =>
      Object.assign(pod('p', '1', status), {
        spec: { containers: [{ name: 'suite', image: 'registry.corp/uats:9.9' }] },
      });
    const permanent = [
      [
        'ErrImagePull',
        'failed to resolve reference "registry.corp/uats:9.9": registry.corp/uats:9.9: not found',
        'not found',
      ],
      [
        'ImagePullBackOff',
        'Back-off pulling image "registry.corp/uats:9.9": ErrImagePull: manifest unknown',
        'manifest unknown',
      ],
      [
        'ErrImagePull',
        'pulling from host registry.corp failed with status code [manifests 9.9]: 401 Unauthorized',
        'Unauthorized',
      ],
      [
        'ErrImagePull',
        'reading manifest 9.9 in registry.corp/uats: denied: requested access to the resource is denied',
        'requested access to the resource is denied',
      ],
    ] as const;
    for (const [reason, message, answered] of permanent) {
      expect(
        assessRun(job(), [withImage(waiting(reason, message))], 'suite'),
        message,
      ).toMatchObject({
        phase: 'waiting',
        fatal: `image "registry.corp/uats:9.9" cannot be pulled: the registry answered "${answered}" (${reason}); check its name and tag, and the pull secret of a private registry`,
      });
    }
  });

  it('keeps waiting on pull failures that may heal', () => {
    for (const message of [
      'failed to do request: Head "https://registry.corp/v2/uats/manifests/9.9": dial tcp 10.0.0.5:443: connect: connection refused',
      'proxyconnect tcp: dial tcp 127.0.0.1:9: connect: connection refused',
      'unexpected status code 503 Service Unavailable',
      'toomanyrequests: You have reached your pull rate limit',
      'Back-off pulling image "registry.corp/uats:9.9"',
    ]) {
      const state = assessRun(job(), [pod('p', '1', waiting('ErrImagePull', message))], 'suite');
      expect(state, message).not.toHaveProperty('fatal');
    }
  });

  it('tells a suite that ended in a pod that keeps running (a classic sidecar)', () => {
    const status = (exitCode: number, reason = 'Completed'): V1Pod['status'] => ({
      phase: 'Running',
      containerStatuses: [
        {
          name: 'istio-proxy',
          image: 'x',
          imageID: '',
          ready: true,
          restartCount: 0,
          state: { running: {} },
        },
        {
          name: 'suite',
          image: 'x',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode, reason } },
        },
      ],
    });
    const state = assessRun(job(), [pod('p', '1', status(3, 'Error'))], 'suite');
    expect(state).toEqual({
      phase: 'lingering',
      pod: 'p',
      exitCode: 3,
      terminatedReason: 'Error',
      running: ['istio-proxy'],
    });
    if (state.phase !== 'lingering') throw new Error('not lingering');
    expect(finishLingering(state, 'suite', 10_000)).toEqual({
      phase: 'finished',
      outcome: 'failed',
      reason:
        'the suite failed: container suite exited with code 3; pod p kept running 10 s after container suite ended (still running: istio-proxy; a sidecar that is not native?), so the run ends on its exit code',
      pod: 'p',
      exitCode: 3,
    });
    const passed = assessRun(job(), [pod('p', '1', status(0))], 'suite');
    if (passed.phase !== 'lingering') throw new Error('not lingering');
    expect(finishLingering(passed, 'suite', 10_000)).toMatchObject({
      outcome: 'passed',
      exitCode: 0,
    });
    // The Job's own verdict wins once it has one.
    expect(assessRun(job({ type: 'Complete' }), [pod('p', '1', status(0))], 'suite')).toMatchObject(
      { phase: 'finished', outcome: 'passed' },
    );
  });

  it('says why the suite did not start when an init container failed', () => {
    const failedInit: V1Pod['status'] = {
      phase: 'Failed',
      initContainerStatuses: [
        {
          name: 'kfx-suite-files',
          image: 'x',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: {
            terminated: {
              exitCode: 128,
              message: "fatal: couldn't find remote ref nope\n",
            },
          },
        },
      ],
      containerStatuses: [
        {
          name: 'suite',
          image: 'x',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { waiting: {} },
        },
      ],
    };
    const saw =
      "init container kfx-suite-files exited with code 128: fatal: couldn't find remote ref nope";
    expect(assessRun(job(), [pod('p', '1', failedInit)], 'suite')).toEqual({
      phase: 'waiting',
      saw: `pod p: ${saw}`,
      fatal: `pod p: ${saw}`,
    });
    expect(
      assessRun(
        job({ type: 'Failed', reason: 'BackoffLimitExceeded' }),
        [pod('p', '1', failedInit)],
        'suite',
      ),
    ).toMatchObject({ outcome: 'error', reason: `the suite did not start: ${saw}` });
  });
});
