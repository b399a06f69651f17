// Variables a container takes from `envFrom` are the workload's own, like those in `env`: an
// injected `env` entry would silently win over them (Kubernetes' precedence). The webhook reads
// the ConfigMaps a Pod names there (their keys only, at admission) and never Secrets; a source it
// cannot read is reported so that the admission response can warn about it.
import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
import type { Plain } from '@kfx/admission-core';

export type EnvFromSource = Plain<NonNullable<V1Container['envFrom']>[number]>;

/** The keys an envFrom source holds, or why they are not known. */
export type EnvFromKeys = { keys: readonly string[] } | { unseen: string };

/** Answers for each envFrom source of a Pod; made before injection (reads are async). */
export type EnvFromLookup = (source: EnvFromSource) => EnvFromKeys;

/** `ConfigMap proxy-env`, `Secret uat-env (prefix APP_)`, for notes and warnings. */
export function describeEnvFrom(source: EnvFromSource): string {
  const ref = source.configMapRef
    ? `ConfigMap ${source.configMapRef.name ?? ''}`
    : source.secretRef
      ? `Secret ${source.secretRef.name ?? ''}`
      : 'an unknown source';
  return source.prefix ? `${ref} (prefix ${source.prefix})` : ref;
}

/** Used when the webhook has no API access, or `readEnvFrom` is off. */
export function unreadEnvFrom(why: string): EnvFromLookup {
  return (source) =>
    source.secretRef ? { unseen: 'Secrets are not read by the webhook' } : { unseen: why };
}

/** The ConfigMaps named in envFrom by any container of `spec`, each once. */
export function envFromConfigMaps(spec: Plain<V1PodSpec>): string[] {
  const names = new Set<string>();
  for (const field of ['containers', 'initContainers', 'ephemeralContainers'] as const) {
    const containers: unknown = spec[field];
    if (!Array.isArray(containers)) continue;
    for (const container of containers as (Partial<Plain<V1Container>> | null)[]) {
      const sources: unknown = container?.envFrom;
      if (!Array.isArray(sources)) continue;
      for (const source of sources as (EnvFromSource | null)[]) {
        const name = source?.configMapRef?.name;
        if (typeof name === 'string' && name !== '') names.add(name);
      }
    }
  }
  return [...names];
}

/** A lookup over ConfigMaps already read: name → keys, or why it could not be read. */
export function envFromLookup(read: ReadonlyMap<string, EnvFromKeys>): EnvFromLookup {
  return (source) => {
    if (source.secretRef) return { unseen: 'Secrets are not read by the webhook' };
    const name = source.configMapRef?.name;
    if (name === undefined) return { unseen: 'neither a ConfigMap nor a Secret' };
    return read.get(name) ?? { unseen: 'not read' };
  };
}
