// Test support: @kfx/testenv's `kwok.kfx.dev/exit-code` stage reads `.metadata` inside
// `range .spec.containers` (where `.` is a container), so kwok fails to render it and the pod
// stays Running for good. Until that is fixed, this ends such pods the way the stage means to:
// Failed, every container terminated with that exit code, once `run-for` has passed. Once the
// stage works, it ends the pods first and this finds nothing to do.
import type { V1Pod } from '@kubernetes/client-node';
import { KubeClient, resources, sleep } from '@kfx/kube-runtime';
import { KWOK_ANNOTATIONS, type ControlPlane } from '@kfx/testenv';

/**
 * Until stopped, ends every Running Job pod that carries `kwok.kfx.dev/exit-code` once its
 * `run-for` has passed: phase Failed, each container terminated with that exit code.
 */
export function failAnnotatedPods(env: ControlPlane): { stop(): Promise<void> } {
  const client = KubeClient.fromKubeConfig(env.kubeConfig);
  const stop = new AbortController();
  const loop = (async () => {
    while (!stop.signal.aborted) {
      const pods = await client.list<V1Pod>(resources.pods).catch(() => ({ items: [] as V1Pod[] }));
      for (const pod of pods.items) await failIfDue(client, pod).catch(() => undefined);
      await sleep(250, stop.signal).catch(() => undefined);
    }
  })();
  return {
    async stop() {
      stop.abort();
      await loop;
      client.close();
    },
  };
}

async function failIfDue(client: KubeClient, pod: V1Pod): Promise<void> {
  const annotations = pod.metadata?.annotations ?? {};
  const exitCode = annotations[KWOK_ANNOTATIONS.exitCode];
  const startedAt = pod.status?.startTime as unknown as string | undefined;
  if (exitCode === undefined || pod.status?.phase !== 'Running' || startedAt === undefined) return;
  const runForMs = parseRunFor(annotations[KWOK_ANNOTATIONS.runFor]);
  if (Date.now() < Date.parse(startedAt) + runForMs) return;
  const now = new Date().toISOString();
  await client.patch(
    resources.pods,
    pod.metadata?.name ?? '',
    {
      status: {
        phase: 'Failed',
        conditions: ['ContainersReady', 'Ready'].map((type) => ({
          type,
          status: 'False',
          reason: 'PodCompleted',
          lastTransitionTime: now,
        })),
        containerStatuses: (pod.spec?.containers ?? []).map((container) => ({
          name: container.name,
          image: container.image,
          imageID: `kwok://${container.image ?? ''}`,
          ready: false,
          started: false,
          restartCount: 0,
          state: {
            terminated: { exitCode: Number(exitCode), reason: 'Error', startedAt, finishedAt: now },
          },
        })),
      },
    },
    { namespace: pod.metadata?.namespace, subresource: 'status' },
  );
}

function parseRunFor(text: string | undefined): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(text ?? '');
  if (!match) return 0;
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };
  return Number(match[1]) * (units[match[2] ?? 's'] ?? 1000);
}
