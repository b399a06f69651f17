// The cluster's part of NO_PROXY, each entry with its source: the cluster names, the cloud
// metadata endpoints, the Kubeflow namespaces, the service and pod ranges and the API server's
// service IP (configured, else discovered, else the kubeadm/flannel defaults), and the nodes'
// addresses and host names. Configuration wins over discovery key by key; the notes say what was
// left out, and a range taken from the defaults is a guess, named as one: managed clouds
// (EKS, AKS) use neither kubeadm's service range nor flannel's pod range.
import { firstHostAddress, parseCidr } from '../addresses.js';
import { cidrCovers, collapseCidrs, coveringCidrs } from '../cidr-set.js';
import { DEFAULT_POD_CIDRS, DEFAULT_SERVICE_CIDRS, type ProxyInjectorConfig } from '../config.js';
import { clusterNames, type NoProxyGroup } from '../no-proxy.js';
import type { DiscoveredNetwork } from './network.js';

interface NoteSink {
  note(text: string): void;
  guess(guess: NoProxyGuess): void;
}

/** Past this many pod ranges after collapsing, the range covering them all is used instead. */
export const MAX_POD_CIDR_ENTRIES = 8;

/** A range NO_PROXY could neither take from the configuration nor discover. */
export interface NoProxyGuess {
  range: 'service' | 'pod';
  /** The configuration key that gives the range. */
  key: 'serviceCidrs' | 'podCidrs';
  /** What was assumed, why, and which key to set. */
  note: string;
}

export interface ClusterNoProxy {
  groups: NoProxyGroup[];
  /** What was assumed, summarised or left out, for preview notes and the log. */
  notes: string[];
  /** The ranges that are guesses (their notes are in `notes` too). */
  guesses: NoProxyGuess[];
}

type NetworkConfig = Pick<
  ProxyInjectorConfig,
  | 'clusterDomain'
  | 'serviceCidrs'
  | 'podCidrs'
  | 'apiServerServiceIp'
  | 'kubeflowNamespaces'
  | 'metadataEndpoints'
  | 'maxNodes'
>;

const guess = (
  range: NoProxyGuess['range'],
  key: NoProxyGuess['key'],
  assumed: string,
  why: string,
): NoProxyGuess => ({
  range,
  key,
  note: `${range} range is a GUESS, ${assumed}: ${why}; set ${key} to the cluster's ${range} range`,
});

function serviceRanges(config: NetworkConfig, discovered: DiscoveredNetwork, notes: NoteSink) {
  if (config.serviceCidrs) {
    return { source: 'config (serviceCidrs)', entries: config.serviceCidrs };
  }
  if (discovered.serviceCidrs && discovered.serviceCidrs.length > 0) {
    return { source: 'discovered from the ServiceCIDR objects', entries: discovered.serviceCidrs };
  }
  const why =
    discovered.serviceCidrsMissing ??
    (discovered.serviceCidrs
      ? 'the cluster has no ServiceCIDR objects'
      : 'no ServiceCIDR objects read');
  notes.guess(
    guess('service', 'serviceCidrs', `kubeadm's ${DEFAULT_SERVICE_CIDRS.join(', ')}`, why),
  );
  return { source: "guess (kubeadm's service range)", entries: DEFAULT_SERVICE_CIDRS };
}

function podRanges(config: NetworkConfig, discovered: DiscoveredNetwork, notes: NoteSink) {
  if (config.podCidrs) return { source: 'config (podCidrs)', entries: config.podCidrs };
  const nodes = discovered.nodes ?? [];
  const withRanges = nodes.filter((node) => node.podCidrs.length > 0);
  if (withRanges.length > 0) {
    const all = withRanges.flatMap((node) => node.podCidrs);
    let entries = collapseCidrs(all);
    if (entries.length > MAX_POD_CIDR_ENTRIES) {
      entries = coveringCidrs(all);
      notes.note(
        `the pod ranges of ${withRanges.length} Nodes do not collapse into ${MAX_POD_CIDR_ENTRIES} CIDRs or fewer: NO_PROXY has the range covering them (${entries.join(', ')})`,
      );
    }
    return {
      source: `discovered from spec.podCIDRs of ${withRanges.length} Node${withRanges.length === 1 ? '' : 's'}`,
      entries,
    };
  }
  const why = discovered.nodes
    ? 'no Node has spec.podCIDR (CNIs such as the EKS VPC CNI, Azure CNI and Calico give Pods addresses of their own pools)'
    : 'Nodes not read';
  notes.guess(guess('pod', 'podCidrs', `flannel's ${DEFAULT_POD_CIDRS.join(', ')}`, why));
  return { source: "guess (flannel's pod range)", entries: DEFAULT_POD_CIDRS };
}

function apiServerIp(
  config: NetworkConfig,
  discovered: DiscoveredNetwork,
  services: readonly string[],
): NoProxyGroup {
  if (config.apiServerServiceIp) {
    return { source: 'config (apiServerServiceIp)', entries: [config.apiServerServiceIp] };
  }
  if (discovered.apiServerServiceIps && discovered.apiServerServiceIps.length > 0) {
    return {
      source: 'discovered from Service default/kubernetes',
      entries: discovered.apiServerServiceIps,
    };
  }
  const first = services[0] === undefined ? undefined : parseCidr(services[0]);
  return {
    source: 'the first address of the service range',
    entries: first ? [firstHostAddress(first)] : [],
  };
}

function nodeEntries(
  config: NetworkConfig,
  discovered: DiscoveredNetwork,
  notes: NoteSink,
): NoProxyGroup {
  const source = 'discovered from Nodes (addresses and host names)';
  const nodes = discovered.nodes;
  if (!nodes || nodes.length === 0 || config.maxNodes === 0) return { source, entries: [] };
  if (nodes.length > config.maxNodes) {
    notes.note(
      `${nodes.length} Nodes, more than maxNodes (${config.maxNodes}): their addresses and host names are left out of NO_PROXY to keep it short; add the nodes' subnet to noProxy`,
    );
    return { source, entries: [] };
  }
  const sorted = [...nodes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { source, entries: sorted.flatMap((node) => [...node.addresses, ...node.hostnames]) };
}

/** The cluster's NO_PROXY groups, in NO_PROXY order. `discovered` is empty without API access. */
export function clusterNoProxy(
  config: NetworkConfig,
  discovered: DiscoveredNetwork = {},
): ClusterNoProxy {
  const notes: string[] = [];
  const guesses: NoProxyGuess[] = [];
  const sink: NoteSink = {
    note: (text) => notes.push(text),
    guess: (g) => {
      guesses.push(g);
      notes.push(g.note);
    },
  };
  const services = serviceRanges(config, discovered, sink);
  const pods = podRanges(config, discovered, sink);
  const api = apiServerIp(config, discovered, services.entries);
  const nodes = nodeEntries(config, discovered, sink);
  const groups: NoProxyGroup[] = [
    { source: 'cluster names', entries: clusterNames(config.clusterDomain) },
    { source: 'cloud metadata endpoints (metadataEndpoints)', entries: config.metadataEndpoints },
    {
      source: 'Kubeflow namespaces (kubeflowNamespaces)',
      entries: config.kubeflowNamespaces.map((namespace) => `.${namespace}`),
    },
    services,
    pods,
    api,
    nodes,
  ];
  const outside = (discovered.apiServerServiceIps ?? []).filter(
    (ip) => !services.entries.some((range) => cidrCovers(range, ip)),
  );
  if (outside.length > 0 && !config.serviceCidrs) {
    notes.push(
      `the kubernetes Service IP ${outside.join(', ')} is outside the service range ${services.entries.join(', ')}: set serviceCidrs`,
    );
  }
  return { groups, notes, guesses };
}

/** The ranges NO_PROXY would guess with this configuration and this view of the cluster. */
export function noProxyGuesses(
  config: NetworkConfig,
  discovered: DiscoveredNetwork = {},
): NoProxyGuess[] {
  return clusterNoProxy(config, discovered).guesses;
}
