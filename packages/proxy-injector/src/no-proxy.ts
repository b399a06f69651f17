// NO_PROXY assembly. Tools disagree on NO_PROXY syntax (httpx and Node's built-in support do not
// understand CIDRs), so the list carries CIDRs, domain suffixes and literal IPs side by side.

export interface ClusterNetwork {
  /** Cluster DNS domain. Default `cluster.local`. */
  clusterDomain?: string;
  /** Service CIDRs (e.g. `10.96.0.0/12`). */
  serviceCidrs?: readonly string[];
  /** Pod CIDRs (e.g. `10.244.0.0/16`). */
  podCidrs?: readonly string[];
  /** The API server's service IP (`KUBERNETES_SERVICE_HOST` inside Pods), e.g. `10.96.0.1`. */
  apiServerServiceIp?: string;
}

/** Local names and the cluster's DNS names, which every Pod needs kept off the proxy. */
export function clusterNames(clusterDomain = 'cluster.local'): string[] {
  const domain = clusterDomain.replace(/^\.+|\.+$/g, '');
  return [
    'localhost',
    '127.0.0.1',
    '::1',
    '.svc',
    `.svc.${domain}`,
    `.${domain}`,
    'kubernetes.default.svc',
  ];
}

/** The entries every cluster needs kept off the proxy, in a stable order. */
export function clusterNoProxyDefaults(network: ClusterNetwork = {}): string[] {
  return [
    ...clusterNames(network.clusterDomain),
    ...(network.serviceCidrs ?? []),
    ...(network.podCidrs ?? []),
    ...(network.apiServerServiceIp ? [network.apiServerServiceIp] : []),
  ];
}

/**
 * Merges NO_PROXY lists: trims entries, drops empties and later duplicates (case-insensitive),
 * and keeps first-seen order so the value is identical on every run (idempotent mutations).
 */
export function mergeNoProxy(...lists: readonly (readonly string[])[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const list of lists) {
    for (const raw of list) {
      for (const piece of raw.split(',')) {
        const entry = piece.trim();
        const key = entry.toLowerCase();
        if (entry === '' || seen.has(key)) continue;
        seen.add(key);
        out.push(entry);
      }
    }
  }
  return out;
}

/** NO_PROXY entries and where they come from (`config (noProxy)`, `discovered from Nodes`, ...). */
export interface NoProxyGroup {
  source: string;
  entries: readonly string[];
}

/**
 * mergeNoProxy over groups, keeping for each group the entries that made it into the list (an
 * entry is credited to the first group that has it).
 */
export function mergeNoProxyGroups(groups: readonly NoProxyGroup[]): {
  noProxy: string[];
  sources: NoProxyGroup[];
} {
  const seen = new Set<string>();
  const noProxy: string[] = [];
  const sources: NoProxyGroup[] = [];
  for (const group of groups) {
    const kept = mergeNoProxy(group.entries).filter((entry) => {
      const key = entry.toLowerCase();
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    noProxy.push(...kept);
    if (kept.length > 0) sources.push({ source: group.source, entries: kept });
  }
  return { noProxy, sources };
}
