// Small reads of the test cluster through kubectl, as plain JSON typed with client-node's model
// interfaces (never through its serializer, which would turn timestamps into Dates).
import type { KubernetesObject } from '@kubernetes/client-node';
import { waitFor } from '@kfx/testenv';
import { kubectl as kubectlOk, runKubectl as kubectl } from '@kfx/testenv';

/** `kubectl get <what> -o json`; `namespace` adds `-n`. */
export async function getJson<T = KubernetesObject>(
  kubeconfigPath: string,
  what: readonly string[],
  namespace?: string,
): Promise<T> {
  const args = ['get', ...what, '-o', 'json', ...(namespace ? ['-n', namespace] : [])];
  return JSON.parse(await kubectlOk(kubeconfigPath, args)) as T;
}

/** The items of a list, e.g. `listJson(path, ['replicasets', '-l', 'app=x'], 'kfx-system')`. */
export async function listJson<T = KubernetesObject>(
  kubeconfigPath: string,
  what: readonly string[],
  namespace?: string,
): Promise<T[]> {
  return (await getJson<{ items: T[] }>(kubeconfigPath, what, namespace)).items;
}

/** Whether `kubectl get <what>` finds it. */
export async function exists(
  kubeconfigPath: string,
  what: readonly string[],
  namespace?: string,
): Promise<boolean> {
  const args = ['get', ...what, '-o', 'name', ...(namespace ? ['-n', namespace] : [])];
  return (await kubectl(kubeconfigPath, args)).code === 0;
}

/**
 * Creates a namespace and waits for what kube-controller-manager puts in every namespace (the
 * default ServiceAccount, kube-root-ca.crt), so an inventory taken afterwards is stable.
 */
export async function createSettledNamespace(kubeconfigPath: string, name: string): Promise<void> {
  await kubectlOk(kubeconfigPath, ['create', 'namespace', name]);
  await waitFor(
    async () => {
      const ready =
        (await exists(kubeconfigPath, ['serviceaccount', 'default'], name)) &&
        (await exists(kubeconfigPath, ['configmap', 'kube-root-ca.crt'], name));
      return ready ? { done: true, value: undefined } : { done: false, saw: 'not yet' };
    },
    { description: `namespace ${name} to get its default ServiceAccount and CA ConfigMap` },
  );
}
