// Appends the planned variables to each container's env, in place. Appending (never inserting)
// keeps every existing entry at its index, so the JSON Patch is a few `add`s at the end; a
// variable the container sets itself, in either case, is left alone, which also makes a second
// pass over an injected Pod a no-op.
import type { V1Container, V1EnvVar, V1PodSpec } from '@kubernetes/client-node';
import type { Plain } from '@kfx/admission-core';
import { JAVA_PROXY_FLAG } from './java-options.js';
import type { InjectionPlan } from './settings.js';

type Container = Plain<V1Container>;
type EnvVar = Plain<V1EnvVar>;
export type PodSpec = Plain<V1PodSpec>;

export type ContainerKind = 'container' | 'init container' | 'ephemeral container';

export interface ContainerReport {
  kind: ContainerKind;
  name: string;
  /** Excluded by name (`excludeContainers`): not touched. */
  excluded: boolean;
  added: string[];
  /** Variables the container sets itself (the names it uses). */
  kept: string[];
  /** What happened to JAVA_TOOL_OPTIONS when javaToolOptions is on. */
  java?: 'added' | 'appended' | 'already-set' | 'from-valueFrom' | 'own-proxy';
  /** envFrom sources: variables injected into env take precedence over theirs. */
  envFrom: string[];
}

/** What the injector may touch: on CREATE the containers and init containers (native sidecars
 * included); on a `pods/ephemeralcontainers` update only the ephemeral containers not there before. */
export type InjectionScope =
  { operation: 'create' } | { operation: 'ephemeral'; existing: ReadonlySet<string> };

function fail(path: string, expected: string): never {
  throw new TypeError(`${path} must be ${expected}`);
}

function listAt<T>(value: unknown, path: string): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail(path, 'a list');
  return value as T[];
}

type EnvFromSource = Plain<NonNullable<V1Container['envFrom']>[number]>;

/** The list at `value`, every item an object; anything else is an error naming the field. */
function objectsAt<T>(value: unknown, path: string): T[] {
  const items = listAt<unknown>(value, path);
  items.forEach((item, index) => {
    if (typeof item !== 'object' || item === null) fail(`${path}[${index}]`, 'an object');
  });
  return items as T[];
}

function envFromSources(container: Container, path: string): string[] {
  return objectsAt<EnvFromSource>(container.envFrom, `${path}.envFrom`).map((source) => {
    const ref = source.configMapRef
      ? `ConfigMap ${source.configMapRef.name ?? ''}`
      : source.secretRef
        ? `Secret ${source.secretRef.name ?? ''}`
        : 'an unknown source';
    return source.prefix ? `${ref} (prefix ${source.prefix})` : ref;
  });
}

function injectJava(env: EnvVar[], plan: InjectionPlan, ownsProxy: boolean) {
  const flags = plan.java?.flags;
  if (flags === undefined || flags === '') return undefined;
  if (ownsProxy) return 'own-proxy';
  const existing = env.find((variable) => variable.name === 'JAVA_TOOL_OPTIONS');
  if (existing === undefined) {
    env.push({ name: 'JAVA_TOOL_OPTIONS', value: flags });
    return 'added';
  }
  if (existing.valueFrom !== undefined) return 'from-valueFrom';
  if (JAVA_PROXY_FLAG.test(existing.value ?? '')) return 'already-set';
  existing.value = existing.value ? `${existing.value} ${flags}` : flags;
  return 'appended';
}

function injectContainer(
  value: unknown,
  kind: ContainerKind,
  path: string,
  plan: InjectionPlan,
): ContainerReport {
  if (typeof value !== 'object' || value === null) fail(path, 'an object');
  const container = value as Container;
  const name = typeof container.name === 'string' ? container.name : '';
  const report: ContainerReport = {
    kind,
    name,
    excluded: plan.excluded.has(name),
    added: [],
    kept: [],
    envFrom: [],
  };
  if (report.excluded) return report;
  report.envFrom = envFromSources(container, path);
  const env = objectsAt<EnvVar>(container.env, `${path}.env`);
  const names = env
    .map((variable) => (variable as { name?: unknown }).name)
    .filter((own): own is string => typeof own === 'string');
  const lowerNames = new Set(names.map((own) => own.toLowerCase()));
  const appended: EnvVar[] = [];
  for (const family of plan.families) {
    if (family.owners.some((owner) => lowerNames.has(owner))) {
      // The workload's own setting: both cases stay as they are, a missing twin included.
      report.kept.push(...names.filter((own) => family.owners.includes(own.toLowerCase())));
      continue;
    }
    for (const variable of family.variables) {
      appended.push({ ...variable });
      report.added.push(variable.name);
    }
  }
  const ownsProxy = lowerNames.has('http_proxy') || lowerNames.has('https_proxy');
  const next = [...env, ...appended];
  const java = injectJava(next, plan, ownsProxy);
  if (java !== undefined) report.java = java;
  if (java === 'added') report.added.push('JAVA_TOOL_OPTIONS');
  if (next.length !== env.length) container.env = next;
  return report;
}

/** Injects into `spec` in place and reports, container by container, what was done. */
export function injectPodSpec(
  spec: PodSpec,
  plan: InjectionPlan,
  scope: InjectionScope,
  at = 'spec',
): ContainerReport[] {
  const groups: [ContainerKind, keyof PodSpec][] =
    scope.operation === 'create'
      ? [
          ['container', 'containers'],
          ['init container', 'initContainers'],
        ]
      : [['ephemeral container', 'ephemeralContainers']];
  const reports: ContainerReport[] = [];
  for (const [kind, field] of groups) {
    const containers = listAt<Container>(spec[field], `${at}.${field}`);
    containers.forEach((container, index) => {
      const name = (container as { name?: unknown } | null)?.name;
      if (scope.operation === 'ephemeral' && typeof name === 'string' && scope.existing.has(name)) {
        return; // already admitted; the apiserver forbids changing it
      }
      reports.push(injectContainer(container, kind, `${at}.${field}[${index}]`, plan));
    });
  }
  return reports;
}
