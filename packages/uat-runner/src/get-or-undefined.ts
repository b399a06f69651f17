// A GET where "not there" is an answer, not an error.
import { isNotFound, type KubeClient, type KubeObject, type ResourceRef } from '@kfx/kube-runtime';

export async function getOrUndefined<T extends KubeObject>(
  client: KubeClient,
  ref: ResourceRef,
  name: string,
  namespace?: string,
): Promise<T | undefined> {
  try {
    return await client.get<T>(ref, name, { namespace });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
