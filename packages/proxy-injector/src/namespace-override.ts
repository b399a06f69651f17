// Per-namespace proxy settings from a ConfigMap in that namespace. Its keys are the variable
// names themselves (HTTP_PROXY, HTTPS_PROXY, NO_PROXY, either case), so the same ConfigMap also
// works with `envFrom`. A proxy key replaces the cluster value (an empty value turns that proxy
// off for the namespace); NO_PROXY entries are added to the cluster's, never replace them, so a
// tenant cannot send cluster-internal traffic to the proxy by mistake.
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { Plain } from '@kfx/admission-core';
import { mergeNoProxy } from './no-proxy.js';
import type { ProxySettings } from './settings.js';

export interface NamespaceOverride {
  /** `ConfigMap team-a/kfx-proxy`, for notes and warnings. */
  source: string;
  /** A URL, `null` when the ConfigMap turns the proxy off, undefined when it does not say. */
  httpProxy?: string | null;
  httpsProxy?: string | null;
  noProxy: string[];
  /** Keys that were ignored, and why; surfaced as admission warnings in that namespace. */
  problems: string[];
}

function value(data: Record<string, string>, upper: string) {
  for (const key of [upper, upper.toLowerCase()]) {
    if (Object.hasOwn(data, key)) return { key, value: String(data[key]).trim() };
  }
  return undefined;
}

function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol, hostname } = new URL(text);
  return (protocol === 'http:' || protocol === 'https:') && hostname !== '';
}

export function parseNamespaceOverride(configMap: Plain<V1ConfigMap>): NamespaceOverride {
  const { namespace = '', name = '' } = configMap.metadata ?? {};
  const source = `ConfigMap ${namespace}/${name}`;
  const data = configMap.data ?? {};
  const override: NamespaceOverride = { source, noProxy: [], problems: [] };
  for (const [upper, field] of [
    ['HTTP_PROXY', 'httpProxy'],
    ['HTTPS_PROXY', 'httpsProxy'],
  ] as const) {
    const found = value(data, upper);
    if (found === undefined) continue;
    if (found.value === '') override[field] = null;
    else if (isHttpUrl(found.value)) override[field] = found.value;
    else {
      override.problems.push(
        `${source}: ${found.key} is not an http:// or https:// URL; the cluster's ${upper} is used`,
      );
    }
  }
  const noProxy = value(data, 'NO_PROXY');
  if (noProxy !== undefined) override.noProxy = mergeNoProxy([noProxy.value]);
  return override;
}

/** The cluster settings with a namespace's override applied. */
export function applyOverride(settings: ProxySettings, override: NamespaceOverride): ProxySettings {
  const pick = (own: string | null | undefined, cluster: string | undefined) =>
    own === undefined ? cluster : (own ?? undefined);
  const merged = mergeNoProxy(settings.noProxy, override.noProxy);
  const added = merged.slice(settings.noProxy.length);
  return {
    ...settings,
    httpProxy: pick(override.httpProxy, settings.httpProxy),
    httpsProxy: pick(override.httpsProxy, settings.httpsProxy),
    noProxy: merged,
    noProxySources: [
      ...settings.noProxySources,
      ...(added.length > 0 ? [{ source: override.source, entries: added }] : []),
    ],
  };
}
