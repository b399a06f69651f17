// What the real node's tests share: their titles (saying why they are skipped where no node can
// run), pods pinned to the node, waiting for a pod to finish or run, and its log.
import { CoreV1Api, type V1Pod, type V1PodSpec } from '@kubernetes/client-node';
import type { ControlPlane } from '../control-plane.js';
import { waitFor } from '../wait.js';
import { realNodeSupport } from './host.js';

export const support = realNodeSupport();

export const title = (what: string): string =>
  support.available ? what : `${what} (skipped: ${support.reason ?? 'unavailable'})`;

type PodParts = Pick<V1PodSpec, 'containers'> & Partial<V1PodSpec>;

export const pod = (
  name: string,
  spec: PodParts,
  meta: { namespace?: string; labels?: Record<string, string> } = {},
): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: meta.namespace ?? 'default', labels: meta.labels ?? {} },
  spec: { restartPolicy: 'Never', nodeName: 'kfx-node', ...spec },
});

/** A pod that runs `script` in sh with `image` (already on the node) and its `env`. */
export const shellPod = (
  name: string,
  image: string,
  script: string,
  meta: { namespace?: string; env?: { name: string; value: string }[] } = {},
): V1Pod =>
  pod(
    name,
    {
      containers: [
        {
          name: 'c',
          image,
          imagePullPolicy: 'Never',
          command: ['sh', '-c', script],
          env: meta.env ?? [],
        },
      ],
    },
    { namespace: meta.namespace ?? 'default' },
  );

/** Waits until the pod is in one of `phases` (default: finished); returns it. */
export async function podIn(
  env: ControlPlane,
  name: string,
  namespace = 'default',
  phases: readonly string[] = ['Succeeded', 'Failed'],
): Promise<V1Pod> {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  return waitFor(
    async () => {
      const found = await core.readNamespacedPod({ name, namespace });
      const phase = found.status?.phase ?? '';
      return phases.includes(phase)
        ? { done: true, value: found }
        : { done: false, saw: JSON.stringify(found.status?.containerStatuses ?? phase) };
    },
    { description: `pod ${namespace}/${name} to be ${phases.join(' or ')}`, timeoutMs: 120_000 },
  );
}

export const logOf = (env: ControlPlane, name: string, namespace = 'default'): Promise<string> =>
  env.kubeConfig.makeApiClient(CoreV1Api).readNamespacedPodLog({ name, namespace });
