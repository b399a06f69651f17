// Watches the suite's Job and its pods until the run is decided: informers (list + watch, with
// kube-runtime's reconnects) feed `assessRun` on every change. Clocks bound the wait: the pod
// must start within `startTimeoutMs` (an image that can never be pulled fails the run at once;
// one whose pulls keep failing for a reason that may heal, a registry out of reach, fails it
// after `pullFailureMs` of failures in a row), and the whole run must end within `timeoutMs`. Timeouts say what they last saw. A waiting pod's status is reported once
// per distinct text: the kubelet alternates ErrImagePull and ImagePullBackOff while it retries.
import type { CoreV1Event, V1Job, V1Pod } from '@kubernetes/client-node';
import { resources, type KubeClient } from '@kfx/kube-runtime/client';
import { createInformer } from '@kfx/kube-runtime/informer';
import { assessRun, finishLingering, type RunState } from './job-status.js';
import { LABELS } from '../base/names.js';
import { UatError } from '../base/outcome.js';
import { formatDuration } from '../base/duration.js';

export type Finished = Extract<RunState, { phase: 'finished' }>;

export interface WatchRunOptions {
  client: KubeClient;
  namespace: string;
  job: string;
  runId: string;
  container: string;
  timeoutMs: number;
  startTimeoutMs: number;
  /** How long the image's pulls may keep failing (for a reason that may heal) before the run gives up. */
  pullFailureMs: number;
  /** How long a pod may run on after the suite's container ended. */
  lingerMs: number;
  signal?: AbortSignal | undefined;
  /** The main container started (or already ended): its log can be read. Called once. */
  onStarted?: ((pod: string) => void) | undefined;
  /** What the run looks like while the pod is not running yet; called when it changes. */
  onWaiting?: ((saw: string) => void) | undefined;
}

export async function watchRun(options: WatchRunOptions): Promise<Finished> {
  const { client, namespace, signal } = options;
  const jobs = createInformer<V1Job>(client, resources.jobs, {
    namespace,
    fieldSelector: `metadata.name=${options.job}`,
    resyncMs: 0,
  });
  const pods = createInformer<V1Pod>(client, resources.pods, {
    namespace,
    labelSelector: `${LABELS.runId}=${options.runId}`,
    resyncMs: 0,
  });
  let lastSaw = 'nothing yet';
  const reported = new Set<string>();
  let podStarted: string | undefined;
  let lingering: NodeJS.Timeout | undefined;
  let pullFailing: NodeJS.Timeout | undefined;
  const { pullFailureMs } = options;
  const timers: NodeJS.Timeout[] = [];
  let onAbort: (() => void) | undefined;
  try {
    return await new Promise<Finished>((resolve, reject) => {
      const fail = (error: unknown) => {
        reject(error instanceof Error ? error : new Error(String(error)));
      };
      const started = (pod: string) => {
        if (podStarted) return;
        podStarted = pod;
        lastSaw = `pod ${pod} running`;
        options.onStarted?.(pod);
      };
      const evaluate = () => {
        if (!jobs.hasSynced() || !pods.hasSynced()) return;
        const job = jobs.store.list()[0];
        if (!job) {
          fail(new UatError(`Job ${namespace}/${options.job} was deleted before the suite ended`));
          return;
        }
        const state = assessRun(job, pods.store.list(), options.container);
        const pulling = state.phase === 'waiting' ? state.pulling : undefined;
        if (pulling === undefined && pullFailing) {
          clearTimeout(pullFailing);
          pullFailing = undefined;
        }
        if (pulling !== undefined) {
          pullFailing ??= setTimeout(() => {
            const now = assessRun(jobs.store.list()[0], pods.store.list(), options.container);
            const still = now.phase === 'waiting' ? now.pulling : undefined;
            if (still !== undefined) {
              fail(
                new UatError(
                  `the suite's pod cannot start: ${still}, failing for ${formatDuration(pullFailureMs)}`,
                ),
              );
            }
          }, pullFailureMs);
        }
        if (state.phase !== 'lingering' && lingering) {
          clearTimeout(lingering);
          lingering = undefined;
        }
        if (state.phase === 'lingering') {
          started(state.pod);
          lingering ??= setTimeout(() => {
            lingering = undefined;
            const now = assessRun(jobs.store.list()[0], pods.store.list(), options.container);
            if (now.phase === 'lingering') {
              resolve(finishLingering(now, options.container, options.lingerMs));
            }
          }, options.lingerMs);
        } else if (state.phase === 'finished') {
          if (state.pod) started(state.pod);
          resolve(state);
        } else if (state.phase === 'running') {
          started(state.pod);
        } else {
          lastSaw = state.saw;
          if (state.fatal) {
            fail(new UatError(`the suite's pod cannot start: ${state.fatal}`));
            return;
          }
          if (!reported.has(state.saw)) options.onWaiting?.(state.saw);
          reported.add(state.saw);
        }
      };
      for (const informer of [jobs, pods] as const) {
        informer.on('add', evaluate);
        informer.on('update', evaluate);
        informer.on('delete', evaluate);
      }
      timers.push(
        setTimeout(() => {
          if (!podStarted) void startFailure(options, lastSaw).then(fail, fail);
        }, options.startTimeoutMs),
        setTimeout(() => {
          fail(
            new UatError(
              `the suite did not finish within ${formatDuration(options.timeoutMs)} (--timeout); last saw: ${lastSaw}`,
            ),
          );
        }, options.timeoutMs),
      );
      onAbort = () => {
        fail(signal?.reason);
      };
      if (signal?.aborted) onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      jobs.start();
      pods.start();
      void Promise.all([jobs.waitForSync(signal), pods.waitForSync(signal)]).then(evaluate, fail);
    });
  } finally {
    for (const timer of timers) clearTimeout(timer);
    if (lingering) clearTimeout(lingering);
    if (pullFailing) clearTimeout(pullFailing);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    await Promise.all([jobs.stop(), pods.stop()]);
  }
}

/** The start timeout's message: what the pod showed, or why the Job made no pod (its events). */
async function startFailure(options: WatchRunOptions, lastSaw: string): Promise<UatError> {
  let detail = lastSaw;
  if (lastSaw === 'no pod yet' || lastSaw === 'nothing yet') {
    const warning = await lastWarning(options).catch(() => undefined);
    if (warning) detail = `no pod; the Job reports: ${warning}`;
  }
  return new UatError(
    `the suite's pod did not start within ${formatDuration(options.startTimeoutMs)} (--start-timeout): ${detail}`,
  );
}

async function lastWarning(options: WatchRunOptions): Promise<string | undefined> {
  const events = await options.client.list<CoreV1Event>(resources.events, {
    namespace: options.namespace,
    fieldSelector: `involvedObject.kind=Job,involvedObject.name=${options.job},type=Warning`,
  });
  const last = events.items.at(-1);
  return last ? `${last.reason ?? 'Warning'}: ${last.message ?? ''}` : undefined;
}
