// The remote node's side of the Pods bound to it, as a kubelet follows them: a list, then a watch
// (fieldSelector spec.nodeName=<node>), again after every end. A new Pod gets a runner; a Pod being
// deleted has its processes stopped within its grace period, its files removed, then its object
// deleted at once (grace 0, for its uid), as the kubelet does; a Pod gone from the API is
// stopped and forgotten.
import type { V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { ApiError, type Api } from './api.js';
import { startPodRunner, type PodRunner, type PodRuntime } from './pod-runner.js';

const RELIST_MS = 1000;

export interface PodSync {
  /** The runner of a Pod on the node, by namespace and name. */
  find(namespace: string, name: string): PodRunner | undefined;
  /** Stops following, then stops every Pod (at once) and removes its files. */
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function startPodSync(options: {
  api: Api;
  nodeName: string;
  runtime: PodRuntime;
  log: Logger;
}): PodSync {
  const { api, log, runtime } = options;
  const runners = new Map<string, PodRunner>();
  let stopped = false;
  // A function, so that a check after an await reads the current value.
  const isStopped = () => stopped;
  let stopWatch: (() => void) | undefined;

  const deleteNow = async (pod: V1Pod) => {
    const { namespace = 'default', name = '', uid } = pod.metadata ?? {};
    const options = { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 };
    await api
      .call('DELETE', `/api/v1/namespaces/${namespace}/pods/${name}`, {
        ...options,
        preconditions: { uid },
      })
      .catch((error: unknown) => {
        // Gone already, or another Pod of that name by now.
        if (!(error instanceof ApiError && (error.status === 404 || error.status === 409))) {
          throw error;
        }
      });
  };

  const onPod = (pod: V1Pod) => {
    const uid = pod.metadata?.uid ?? '';
    const deleting = Boolean(pod.metadata?.deletionTimestamp);
    let runner = runners.get(uid);
    if (!runner) {
      const ended = pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
      if (deleting) {
        deleteNow(pod).catch((error: unknown) => {
          log.warn({ err: error }, 'delete failed');
        });
      }
      if (deleting || ended || stopped) return;
      runner = startPodRunner(runtime, pod);
      runners.set(uid, runner);
      const { namespace, name } = pod.metadata ?? {};
      log.info({ namespace, pod: name, uid }, 'pod bound here');
    }
    if (deleting && !runner.terminating()) {
      runner
        .terminate(pod.metadata?.deletionGracePeriodSeconds ?? 30)
        .then(() => deleteNow(pod))
        .catch((error: unknown) => {
          log.warn({ err: error }, 'termination failed');
        });
    }
  };

  const forget = (uid: string) => {
    const runner = runners.get(uid);
    if (!runner) return;
    runners.delete(uid);
    void runner.terminate(0);
  };

  const selector = `fieldSelector=${encodeURIComponent(`spec.nodeName=${options.nodeName}`)}`;
  const follow = async () => {
    while (!isStopped()) {
      try {
        const list = await api.call<{ items: V1Pod[]; metadata: { resourceVersion: string } }>(
          'GET',
          `/api/v1/pods?${selector}`,
        );
        const listed = new Set(list.items.map((p) => p.metadata?.uid));
        for (const uid of [...runners.keys()].filter((u) => !listed.has(u))) forget(uid);
        for (const pod of list.items) onPod(pod);
        const from = list.metadata.resourceVersion;
        const watching = api.watch(
          `/api/v1/pods?${selector}&watch=true&allowWatchBookmarks=true&timeoutSeconds=300&resourceVersion=${from}`,
          (event) => {
            const pod = event.object as V1Pod;
            if (event.type === 'ADDED' || event.type === 'MODIFIED') onPod(pod);
            if (event.type === 'DELETED') forget(pod.metadata?.uid ?? '');
            if (event.type === 'ERROR') watching.stop();
          },
        );
        stopWatch = () => {
          watching.stop();
        };
        if (isStopped()) watching.stop();
        await watching.ended;
      } catch (error) {
        log.warn({ err: error }, 'listing pods failed; retrying');
      }
      if (!isStopped()) await sleep(RELIST_MS);
    }
  };
  const following = follow();

  return {
    find: (namespace, name) =>
      [...runners.values()].find((r) => r.namespace === namespace && r.name === name),
    async stop() {
      stopped = true;
      stopWatch?.();
      await following;
      await Promise.all([...runners.values()].map((r) => r.terminate(0)));
    },
  };
}
