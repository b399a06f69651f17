// Pods on the real node, through kubectl: create one, wait until it has finished, read its log.
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { applyManifests, kubectl, realNodeSupport, waitFor } from '@kfx/testenv';
import { getJson } from '../cluster.js';

const support = realNodeSupport();

/** A describe title that carries why it is skipped where no real node can run. */
export const onRealNode = (what: string): string =>
  support.available ? what : `${what} (skipped: ${support.reason ?? 'no real node'})`;

export const realNodeAvailable = support.available;

/** Waits until the pod has Succeeded or Failed; returns it as stored. */
export async function finishedPod(
  kubeconfigPath: string,
  name: string,
  namespace: string,
): Promise<V1Pod> {
  return waitFor(
    async () => {
      const pod = await getJson<V1Pod>(kubeconfigPath, ['pod', name], namespace);
      const phase = pod.status?.phase;
      return phase === 'Succeeded' || phase === 'Failed'
        ? { done: true, value: pod }
        : { done: false, saw: JSON.stringify(pod.status?.containerStatuses ?? phase ?? '') };
    },
    { description: `pod ${namespace}/${name} to finish`, timeoutMs: 120_000 },
  );
}

/** Creates the pod, waits until it has finished, and returns it with the log of `container`. */
export async function runPod(
  kubeconfigPath: string,
  pod: V1Pod,
  container?: string,
): Promise<{ pod: V1Pod; log: string }> {
  const name = pod.metadata?.name ?? '';
  const namespace = pod.metadata?.namespace ?? 'default';
  await applyManifests(kubeconfigPath, pod);
  const done = await finishedPod(kubeconfigPath, name, namespace);
  const log = await kubectl(kubeconfigPath, [
    'logs',
    '-n',
    namespace,
    name,
    ...(container ? ['-c', container] : []),
  ]);
  return { pod: done, log };
}

/** Waits until every replica of the Deployment is ready (Pods on the real node take a while). */
export async function readyDeployment(
  kubeconfigPath: string,
  name: string,
  namespace: string,
): Promise<V1Deployment> {
  return waitFor(
    async () => {
      const found = await getJson<V1Deployment>(kubeconfigPath, ['deployment', name], namespace);
      const wanted = found.spec?.replicas ?? 1;
      return found.status?.readyReplicas === wanted
        ? { done: true, value: found }
        : { done: false, saw: JSON.stringify(found.status?.conditions ?? []) };
    },
    { description: `${namespace}/${name} to have every replica ready`, timeoutMs: 180_000 },
  );
}
