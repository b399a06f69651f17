// `--proxy-from-env`: the CI runner's own proxy settings, handed to the suite's pod. Tools read
// different spellings (curl only lower-case http_proxy, most others either), so every variable
// goes in both cases. The runner's NO_PROXY describes the runner's network; inside the cluster,
// service names must never go through the proxy, so the in-cluster suffixes are added to it.

const NAMES = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY'] as const;

/** Added to NO_PROXY whenever a proxy is passed on: cluster-internal names stay direct. */
const IN_CLUSTER_NO_PROXY: readonly string[] = [
  'localhost',
  '127.0.0.1',
  '.svc',
  '.svc.cluster.local',
  '.cluster.local',
  'kubernetes.default.svc',
];

/**
 * HTTP_PROXY, HTTPS_PROXY and NO_PROXY from `env` (either case; upper-case wins), each set in
 * both cases. Empty when the environment names no proxy.
 */
export function proxyEnvFrom(env: NodeJS.ProcessEnv): Record<string, string> {
  const found: Partial<Record<(typeof NAMES)[number], string>> = {};
  for (const name of NAMES) {
    const value = env[name] ?? env[name.toLowerCase()];
    if (value !== undefined && value.trim() !== '') found[name] = value.trim();
  }
  if (found.HTTP_PROXY === undefined && found.HTTPS_PROXY === undefined) return {};
  found.NO_PROXY = mergeNoProxy(found.NO_PROXY ?? '', IN_CLUSTER_NO_PROXY);
  const out: Record<string, string> = {};
  for (const name of NAMES) {
    const value = found[name];
    if (value === undefined) continue;
    out[name] = value;
    out[name.toLowerCase()] = value;
  }
  return out;
}

/** The entries of `list` (comma-separated) then the missing `extra` ones, de-duplicated. */
export function mergeNoProxy(list: string, extra: readonly string[]): string {
  const entries: string[] = [];
  for (const entry of [...list.split(','), ...extra]) {
    const trimmed = entry.trim();
    if (trimmed !== '' && !entries.includes(trimmed)) entries.push(trimmed);
  }
  return entries.join(',');
}
