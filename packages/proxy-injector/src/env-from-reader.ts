// Reads, at admission, the keys of the ConfigMaps a Pod's containers name in envFrom: one GET
// each (in parallel), bounded in time so that a slow API server cannot stall Pod creation; the
// values are never kept. A ConfigMap that cannot be read becomes an "unseen" source, which the
// admission response warns about.
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { Plain } from '@kfx/admission-core';
import { isNotFound, KubeApiError, resources, type KubeClient } from '@kfx/kube-runtime/client';
import { messageOf } from '@kfx/kube-runtime/serving';
import { envFromLookup, type EnvFromKeys, type EnvFromLookup } from './env-from.js';

/** Longest wait for the ConfigMaps of one Pod. */
const ENV_FROM_TIMEOUT_MS = 2000;

export interface EnvFromReaderOptions {
  /** A ConfigMap that is the injector's own input (namespaceConfigMap): its keys do not count. */
  ignore?: string | undefined;
  timeoutMs?: number | undefined;
}

async function readKeys(
  client: KubeClient,
  namespace: string,
  name: string,
  signal: AbortSignal,
): Promise<EnvFromKeys> {
  try {
    const configMap = await client.get<Plain<V1ConfigMap>>(resources.configMaps, name, {
      namespace,
      signal,
    });
    return { keys: Object.keys(configMap.data ?? {}) };
  } catch (error) {
    if (isNotFound(error)) return { unseen: 'it does not exist' };
    if (error instanceof KubeApiError && error.status === 403) {
      return { unseen: 'the webhook may not read ConfigMaps' };
    }
    if (signal.aborted) return { unseen: 'the API server did not answer in time' };
    return { unseen: messageOf(error) };
  }
}

export function createEnvFromReader(client: KubeClient, options: EnvFromReaderOptions = {}) {
  const timeoutMs = options.timeoutMs ?? ENV_FROM_TIMEOUT_MS;
  /** The lookup for ConfigMaps `names` (envFromConfigMaps) of `namespace`; `signal` the admission's. */
  return async (
    namespace: string,
    names: readonly string[],
    signal?: AbortSignal,
  ): Promise<EnvFromLookup> => {
    const read = new Map<string, EnvFromKeys>();
    if (names.length > 0) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const bounded = signal ? AbortSignal.any([signal, timeout]) : timeout;
      await Promise.all(
        names.map(async (name) => {
          read.set(
            name,
            name === options.ignore
              ? { keys: [] }
              : await readKeys(client, namespace, name, bounded),
          );
        }),
      );
    }
    return envFromLookup(read);
  };
}
