// Which Pod volume carries the proxy CA bundle. A volume that already mounts the same ConfigMap
// key is reused (a second pass over an injected Pod, or the workload's own), so the mutation is
// idempotent; a volume of the same name that is something else is never replaced: the bundle's
// volume then takes the next free name (`kfx-proxy-ca-2`, ...).
import type { V1Volume } from '@kubernetes/client-node';
import type { Plain } from '@kfx/admission-core';

type Volume = Plain<V1Volume>;

export interface CaVolumeChoice {
  name: string;
  /** The volume to append to the Pod if a container mounts it; undefined when it is there. */
  add: Volume | undefined;
  /** Set when a container mounted it. */
  used: boolean;
}

function sameSource(a: Volume, b: Volume): boolean {
  const items = (volume: Volume) =>
    JSON.stringify((volume.configMap?.items ?? []).map(({ key, path }) => [key, path]));
  return (
    a.configMap !== undefined && a.configMap.name === b.configMap?.name && items(a) === items(b)
  );
}

/**
 * The volume for `wanted` among the Pod's `volumes`. Ephemeral containers cannot add a volume to
 * a running Pod: for them only an existing one will do (undefined otherwise).
 */
export function chooseCaVolume(
  volumes: readonly Volume[],
  wanted: Volume,
  operation: 'create' | 'ephemeral',
): CaVolumeChoice | undefined {
  const existing = volumes.find((volume) => sameSource(volume, wanted));
  if (existing?.name) return { name: existing.name, add: undefined, used: false };
  if (operation === 'ephemeral') return undefined;
  const taken = new Set(volumes.map((volume) => volume.name));
  let name = wanted.name;
  for (let n = 2; taken.has(name); n += 1) name = `${wanted.name}-${n}`;
  return { name, add: { ...wanted, name }, used: false };
}
