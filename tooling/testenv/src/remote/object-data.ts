// The ConfigMaps and Secrets a Pod's environment and volumes read, each fetched once per Pod (a
// Secret's values decoded); a missing one is `undefined` and is asked for again next time, since
// it may be created after the Pod.
import { ApiError, type Api } from './api.js';
import type { ReadData } from './container-env.js';

export function objectData(api: Api, namespace: string): ReadData {
  const cache = new Map<string, Promise<Record<string, string> | undefined>>();
  const decode = (data: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString()]),
    );
  return (kind, name) => {
    const key = `${kind}/${name}`;
    const plural = kind === 'ConfigMap' ? 'configmaps' : 'secrets';
    const found =
      cache.get(key) ??
      api
        .call<{ data?: Record<string, string> }>(
          'GET',
          `/api/v1/namespaces/${namespace}/${plural}/${name}`,
        )
        .then(
          ({ data = {} }) => (kind === 'Secret' ? decode(data) : data),
          (error: unknown) => {
            cache.delete(key);
            if (error instanceof ApiError && error.status === 404) return undefined;
            throw error;
          },
        );
    cache.set(key, found);
    return found;
  };
}
