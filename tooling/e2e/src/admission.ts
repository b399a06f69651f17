// Creating objects through a webhook that was just registered. The API server picks a new
// webhook configuration up asynchronously, and the charts register theirs with
// failurePolicy: Ignore, so an early create would be admitted unchanged and prove nothing: dry-run
// creates are retried until the webhook has visibly acted, then the object is created for real.
import type { KubernetesObject } from '@kubernetes/client-node';
import { waitFor } from '@kfx/testenv';
import { kubectl as kubectlOk } from '@kfx/testenv';

export async function createThroughWebhook<T extends KubernetesObject>(
  kubeconfigPath: string,
  object: KubernetesObject,
  acted: (admitted: T) => boolean,
): Promise<T> {
  const body = JSON.stringify(object);
  const name = `${object.kind ?? '?'} ${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? '?'}`;
  await waitFor(
    async () => {
      const dryRun = JSON.parse(
        await kubectlOk(
          kubeconfigPath,
          ['create', '--dry-run=server', '-o', 'json', '-f', '-'],
          body,
        ),
      ) as T;
      return acted(dryRun) ? { done: true, value: undefined } : { done: false, saw: 'unchanged' };
    },
    {
      description: `the webhook to act on a dry-run create of ${name}`,
      timeoutMs: 30_000,
      intervalMs: 250,
    },
  );
  return JSON.parse(
    await kubectlOk(kubeconfigPath, ['create', '-o', 'json', '-f', '-'], body),
  ) as T;
}
