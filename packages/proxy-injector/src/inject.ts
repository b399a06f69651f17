// Appends the planned variables to each container's env, in place. Appending (never inserting)
// keeps every existing entry at its index, so the JSON Patch is a few `add`s at the end; a
// variable the container sets itself, in `env` or through a ConfigMap it reads with `envFrom`,
// in either case, is left alone, which also makes a second pass over an injected Pod a no-op.
// With a proxy CA bundle, its volume is added to the Pod and mounted in each container.
import type { V1Container, V1EnvVar, V1PodSpec, V1VolumeMount } from '@kubernetes/client-node';
import type { Plain } from '@kfx/admission-core';
import { chooseCaVolume, type CaVolumeChoice } from './ca-volume.js';
import {
  describeEnvFrom,
  unreadEnvFrom,
  type EnvFromLookup,
  type EnvFromSource,
} from './env-from.js';
import { JAVA_PROXY_FLAG } from './java-options.js';
import type { InjectionPlan } from './settings.js';

type Container = Plain<V1Container>;
type EnvVar = Plain<V1EnvVar>;
type VolumeMount = Plain<V1VolumeMount>;
export type PodSpec = Plain<V1PodSpec>;

type ContainerKind = 'container' | 'init container' | 'ephemeral container';

export interface ContainerReport {
  kind: ContainerKind;
  name: string;
  /** Excluded by name (`excludeContainers`): not touched. */
  excluded: boolean;
  added: string[];
  /** Variables the container sets itself (the names it uses). */
  kept: string[];
  /** Of `kept`, the variables that come from an envFrom ConfigMap, e.g. `NO_PROXY (ConfigMap x)`. */
  keptFromEnvFrom: string[];
  /** What happened to JAVA_TOOL_OPTIONS when javaToolOptions is on. */
  java?: 'added' | 'appended' | 'already-set' | 'from-valueFrom' | 'from-envFrom' | 'own-proxy';
  /** envFrom sources, described (`ConfigMap proxy-env`, `Secret uat-env (prefix A_)`). */
  envFrom: string[];
  /** envFrom sources whose keys are not known: an injected variable takes precedence there. */
  unseenEnvFrom: { source: string; reason: string }[];
  /** What happened with the proxy CA bundle, when one is planned. */
  ca?: 'mounted' | 'already-mounted' | 'path-taken' | 'no-volume';
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

/** The list at `value`, every item an object; anything else is an error naming the field. */
function objectsAt<T>(value: unknown, path: string): T[] {
  const items = listAt<unknown>(value, path);
  items.forEach((item, index) => {
    if (typeof item !== 'object' || item === null) fail(`${path}[${index}]`, 'an object');
  });
  return items as T[];
}

/** Variable names (as set) that the container's envFrom sources bring, by lower-case name. */
function readEnvFrom(
  container: Container,
  path: string,
  lookup: EnvFromLookup,
  report: ContainerReport,
): Map<string, string[]> {
  const brought = new Map<string, string[]>();
  for (const source of objectsAt<EnvFromSource>(container.envFrom, `${path}.envFrom`)) {
    const described = describeEnvFrom(source);
    report.envFrom.push(described);
    const found = lookup(source);
    if ('unseen' in found) {
      report.unseenEnvFrom.push({ source: described, reason: found.unseen });
      continue;
    }
    for (const key of found.keys) {
      const name = `${source.prefix ?? ''}${key}`;
      const lower = name.toLowerCase();
      brought.set(lower, [...(brought.get(lower) ?? []), `${name} (${described})`]);
    }
  }
  return brought;
}

function injectJava(env: EnvVar[], plan: InjectionPlan, ownsProxy: boolean, fromEnvFrom: boolean) {
  const flags = plan.java?.flags;
  if (flags === undefined || flags === '') return undefined;
  if (ownsProxy) return 'own-proxy';
  const existing = env.find((variable) => variable.name === 'JAVA_TOOL_OPTIONS');
  if (existing === undefined && fromEnvFrom) return 'from-envFrom';
  if (existing === undefined) {
    env.push({ name: 'JAVA_TOOL_OPTIONS', value: flags });
    return 'added';
  }
  if (existing.valueFrom !== undefined) return 'from-valueFrom';
  if (JAVA_PROXY_FLAG.test(existing.value ?? '')) return 'already-set';
  existing.value = existing.value ? `${existing.value} ${flags}` : flags;
  return 'appended';
}

interface Context {
  plan: InjectionPlan;
  lookup: EnvFromLookup;
  /** The CA bundle's volume in this Pod, when one is planned and can be had. */
  caVolume: CaVolumeChoice | undefined;
}

/** Mounts the CA bundle volume at its path, unless something else is mounted there. */
function mountCa(container: Container, path: string, context: Context, report: ContainerReport) {
  const { plan, caVolume } = context;
  if (!plan.ca) return false;
  if (!caVolume) {
    report.ca = 'no-volume';
    return false;
  }
  const { mountPath } = plan.ca;
  const mounts = objectsAt<VolumeMount>(container.volumeMounts, `${path}.volumeMounts`);
  const atPath = mounts.find((mount) => {
    const at = (mount as { mountPath?: unknown }).mountPath;
    return typeof at === 'string' && at.replace(/\/+$/, '') === mountPath;
  });
  if (atPath) {
    report.ca = atPath.name === caVolume.name ? 'already-mounted' : 'path-taken';
    return report.ca === 'already-mounted';
  }
  container.volumeMounts = [...mounts, { name: caVolume.name, mountPath, readOnly: true }];
  report.ca = 'mounted';
  caVolume.used = true;
  return true;
}

function injectContainer(
  value: unknown,
  kind: ContainerKind,
  path: string,
  context: Context,
): ContainerReport {
  if (typeof value !== 'object' || value === null) fail(path, 'an object');
  const { plan } = context;
  const container = value as Container;
  const name = typeof container.name === 'string' ? container.name : '';
  const report: ContainerReport = {
    kind,
    name,
    excluded: plan.excluded.has(name),
    added: [],
    kept: [],
    keptFromEnvFrom: [],
    envFrom: [],
    unseenEnvFrom: [],
  };
  if (report.excluded) return report;
  const brought = readEnvFrom(container, path, context.lookup, report);
  const env = objectsAt<EnvVar>(container.env, `${path}.env`);
  const names = env
    .map((variable) => (variable as { name?: unknown }).name)
    .filter((own): own is string => typeof own === 'string');
  const lowerNames = new Set(names.map((own) => own.toLowerCase()));
  const owns = (owner: string) => lowerNames.has(owner) || brought.has(owner);
  const appended: EnvVar[] = [];
  const add = (families: InjectionPlan['families']) => {
    for (const family of families) {
      if (family.owners.some(owns)) {
        // The workload's own setting: both cases stay as they are, a missing twin included.
        report.kept.push(...names.filter((own) => family.owners.includes(own.toLowerCase())));
        for (const owner of family.owners) {
          const from = brought.get(owner) ?? [];
          report.kept.push(...from);
          report.keptFromEnvFrom.push(...from);
        }
        continue;
      }
      for (const variable of family.variables) {
        appended.push({ ...variable });
        report.added.push(variable.name);
      }
    }
  };
  add(plan.families);
  const ca = plan.ca;
  if (ca?.families.some((family) => !family.owners.some(owns))) {
    if (mountCa(container, path, context, report)) add(ca.families);
  } else if (ca) {
    add(ca.families); // every CA variable is the workload's own: nothing to mount
  }
  const ownsProxy = owns('http_proxy') || owns('https_proxy');
  const next = [...env, ...appended];
  const java = injectJava(next, plan, ownsProxy, brought.has('java_tool_options'));
  if (java !== undefined) report.java = java;
  if (java === 'added') report.added.push('JAVA_TOOL_OPTIONS');
  if (next.length !== env.length) container.env = next;
  return report;
}

/**
 * Injects into `spec` in place and reports, container by container, what was done. `lookup`
 * says which keys the envFrom sources hold (default: none known, each reported as unseen).
 */
export function injectPodSpec(
  spec: PodSpec,
  plan: InjectionPlan,
  scope: InjectionScope,
  at = 'spec',
  lookup: EnvFromLookup = unreadEnvFrom('the webhook has no API access'),
): ContainerReport[] {
  const groups: [ContainerKind, keyof PodSpec][] =
    scope.operation === 'create'
      ? [
          ['container', 'containers'],
          ['init container', 'initContainers'],
        ]
      : [['ephemeral container', 'ephemeralContainers']];
  const caVolume = plan.ca
    ? chooseCaVolume(objectsAt(spec.volumes, `${at}.volumes`), plan.ca.volume, scope.operation)
    : undefined;
  const context: Context = { plan, lookup, caVolume };
  const reports: ContainerReport[] = [];
  for (const [kind, field] of groups) {
    const containers = listAt<Container>(spec[field], `${at}.${field}`);
    containers.forEach((container, index) => {
      const name = (container as { name?: unknown } | null)?.name;
      if (scope.operation === 'ephemeral' && typeof name === 'string' && scope.existing.has(name)) {
        return; // already admitted; the apiserver forbids changing it
      }
      reports.push(injectContainer(container, kind, `${at}.${field}[${index}]`, context));
    });
  }
  if (caVolume?.used && caVolume.add) spec.volumes = [...(spec.volumes ?? []), caVolume.add];
  return reports;
}
