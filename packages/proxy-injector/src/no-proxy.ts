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

/** The entries every cluster needs kept off the proxy, in a stable order. */
export function clusterNoProxyDefaults(network: ClusterNetwork = {}): string[] {
  const domain = (network.clusterDomain ?? 'cluster.local').replace(/^\.+|\.+$/g, '');
  return [
    'localhost',
    '127.0.0.1',
    '::1',
    '.svc',
    `.svc.${domain}`,
    `.${domain}`,
    'kubernetes.default.svc',
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
