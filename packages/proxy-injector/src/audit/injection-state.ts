// Whether a Pod runs with the proxy settings, judged by what its spec holds — never by the mark
// the injector leaves (`proxy-injector.kfx.dev/injected`), which the Pod's creator can write as
// well. On CREATE the injector gives every container and init container it does not exclude
// HTTP_PROXY/HTTPS_PROXY (both cases) unless the container sets them itself, in `env` or through
// a ConfigMap it reads with `envFrom` (a Secret there does not count: the webhook never reads
// one and injects anyway). So a container without either in `env` has them only when one of its
// envFrom ConfigMaps holds them; a Pod with a container that has neither was never injected.
// The CA bundle volume is no proof: it comes with the variables, and alone it is as easy to
// write as the mark.
import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
import type { Plain } from '@kfx/admission-core';
import type { EnvFromLookup, EnvFromSource } from '../env-from.js';
import { DEFAULT_EXCLUDED_CONTAINERS } from '../config.js';
import { INJECT_LABEL, isMirrorPod, optedOut } from '../opt-out.js';

/**
 * `injected`: its containers carry the proxy variables; `env-from`: those that do not in `env`
 * read ConfigMaps through envFrom, which decide (a `lookup` answers); `missed`: a container has
 * none (admitted while the webhook was unreachable, or failed open on).
 */
export type InjectionState = 'injected' | 'opted-out' | 'mirror' | 'env-from' | 'missed';

/** The variables that send traffic through the proxy, by lower-case name. */
const PROXY_VARIABLES: ReadonlySet<string> = new Set(['http_proxy', 'https_proxy']);

/** A container without a proxy variable in `env`: the ConfigMaps it reads with envFrom. */
interface BareContainer {
  name: string;
  configMaps: EnvFromSource[];
}

/** What the audit keeps of a Pod's spec (a few bytes: usually no bare container at all). */
export interface ProxyFacts {
  readonly bare: readonly BareContainer[];
}

/** The facts of almost every Pod, shared rather than one object per Pod in the cache. */
const ALL_CARRIED: ProxyFacts = Object.freeze({ bare: Object.freeze([]) });

interface Meta {
  metadata?:
    | {
        annotations?: Record<string, string> | undefined;
        labels?: Record<string, string> | undefined;
      }
    | undefined;
}

type Container = Partial<Plain<V1Container>>;

const listOf = <T>(value: unknown): T[] =>
  Array.isArray(value)
    ? ((value as unknown[]).filter((item) => item !== null && typeof item === 'object') as T[])
    : [];

function bareContainer(container: Container): BareContainer | undefined {
  const names = listOf<{ name?: unknown }>(container.env).map((variable) => variable.name);
  if (names.some((name) => typeof name === 'string' && PROXY_VARIABLES.has(name.toLowerCase()))) {
    return undefined;
  }
  const configMaps = listOf<EnvFromSource>(container.envFrom).flatMap((source) =>
    typeof source.configMapRef?.name === 'string'
      ? [{ configMapRef: { name: source.configMapRef.name }, prefix: source.prefix ?? '' }]
      : [],
  );
  return { name: typeof container.name === 'string' ? container.name : '', configMaps };
}

/** The containers of `spec` the injector would have given the proxy variables, lacking them. */
export function proxyFacts(
  spec: unknown,
  excludeContainers: readonly string[] = DEFAULT_EXCLUDED_CONTAINERS,
): ProxyFacts {
  const excluded = new Set(excludeContainers);
  const { containers, initContainers } = (spec ?? {}) as Partial<Plain<V1PodSpec>>;
  const all = [...listOf<Container>(containers), ...listOf<Container>(initContainers)];
  const bare = all
    .filter((container) => typeof container.name !== 'string' || !excluded.has(container.name))
    .flatMap((container) => bareContainer(container) ?? []);
  return bare.length === 0 ? ALL_CARRIED : { bare };
}

/** Whether every bare container takes a proxy variable from one of its ConfigMaps. */
export function carriedByConfigMaps(facts: ProxyFacts, lookup: EnvFromLookup): boolean {
  return facts.bare.every((container) =>
    container.configMaps.some((source) => {
      const found = lookup(source);
      return (
        'keys' in found &&
        found.keys.some((key) => PROXY_VARIABLES.has(`${source.prefix ?? ''}${key}`.toLowerCase()))
      );
    }),
  );
}

/** The verdict on a Pod of `facts` (its own, or those a cache kept). */
export function stateOf(pod: Meta, facts: ProxyFacts): InjectionState {
  if (optedOut(pod)) return 'opted-out';
  if (isMirrorPod(pod)) return 'mirror';
  if (facts.bare.length === 0) return 'injected';
  return facts.bare.every((container) => container.configMaps.length > 0) ? 'env-from' : 'missed';
}

export interface InjectionStateOptions {
  /** The webhook's `excludeContainers`. Default: its default (the Istio and Linkerd containers). */
  excludeContainers?: readonly string[] | undefined;
  /** The keys of the Pod's envFrom ConfigMaps: with it, `env-from` becomes `injected` or `missed`. */
  lookup?: EnvFromLookup | undefined;
}

/** What became of a whole Pod at admission, as far as its spec tells. */
export function injectionState(
  pod: Meta & { spec?: unknown },
  options: InjectionStateOptions = {},
): InjectionState {
  const facts = proxyFacts(pod.spec, options.excludeContainers);
  const state = stateOf(pod, facts);
  if (state !== 'env-from' || !options.lookup) return state;
  return carriedByConfigMaps(facts, options.lookup) ? 'injected' : 'missed';
}

/** Whether the webhook is called for Pods of this namespace at all (its label opt-out). */
export function namespaceServed(namespace: Meta | undefined): boolean {
  return namespace?.metadata?.labels?.[INJECT_LABEL]?.trim().toLowerCase() !== 'false';
}
