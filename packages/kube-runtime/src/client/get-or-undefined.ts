// A GET where "not there" is an answer, not an error: undefined on 404, any other failure thrown.
import type { KubeClient } from './client.js';
import { isNotFound } from './errors.js';
import type { KubeObject, ResourceRef } from './resources.js';
import type { ObjectOptions } from './verbs.js';

export async function getOrUndefined<T extends KubeObject>(
  client: KubeClient,
  ref: ResourceRef,
  name: string,
  options: ObjectOptions = {},
): Promise<T | undefined> {
  try {
    return await client.get<T>(ref, name, options);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
