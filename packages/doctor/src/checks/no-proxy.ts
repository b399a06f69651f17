// Check `no-proxy`: what the probe Pods got in NO_PROXY against what the cluster reports — the
// service ranges (ServiceCIDR objects), the pod ranges (Nodes' podCIDRs, else the addresses
// Pods are seen with in EndpointSlices), the kubernetes Service's address, the cloud metadata
// endpoints, the Kubeflow namespaces and the Profiles' namespaces. A range the webhook had to
// guess is a warning naming the value to set; a range it was given or discovered that misses
// the cluster's is an error.
import {
  DEFAULT_KUBEFLOW_NAMESPACES,
  DEFAULT_METADATA_ENDPOINTS,
  DEFAULT_POD_CIDRS,
  DEFAULT_SERVICE_CIDRS,
  type DiscoveredNetwork,
} from '@kfx/proxy-injector';
import { objectName, type Finding } from '../finding.js';
import { ran, skipped, type Check } from '../check.js';
import type { Cluster } from '../cluster.js';
import { kfxWebhooks, webhookValueFix, type KfxWebhook } from '../kfx-webhook.js';
import { probes } from '../probe.js';
import { covers, coversDomain, noProxyEntries, suggestedPodRanges } from '../no-proxy-facts.js';

/** What the cluster says NO_PROXY must hold. */
interface ClusterFacts {
  network: DiscoveredNetwork;
  /** Addresses Pods (not on the host network) are seen with. */
  podIps: string[];
  /** Kubeflow namespaces (of the webhook's kubeflowNamespaces) that exist. */
  kubeflowNamespaces: string[];
  profileNamespaces: string[];
  /** Whether the webhook's configuration gives the ranges (then they are no guess). */
  configured: { serviceCidrs: boolean; podCidrs: boolean };
}

type Issue = Omit<Finding, 'check' | 'object' | 'objects'>;

const listFix = (webhook: KfxWebhook, key: string, values: readonly string[]) =>
  webhookValueFix(webhook, `proxyInjector.config.${key}`, `{${values.join(',')}}`);

const shown = (items: readonly string[], count = 3) =>
  items.slice(0, count).join(', ') + (items.length > count ? ', …' : '');

function serviceIssues(entries: string[], facts: ClusterFacts, webhook: KfxWebhook): Issue[] {
  const ranges = facts.network.serviceCidrs;
  if (ranges && ranges.length > 0) {
    const missed = ranges.filter((range) => !covers(entries, range));
    return missed.length === 0
      ? []
      : [
          {
            code: 'no-proxy.service-range',
            severity: 'error',
            message: `NO_PROXY misses the service range ${missed.join(', ')} (ServiceCIDR objects): Services called by IP go through the proxy`,
            fix: listFix(webhook, 'serviceCidrs', ranges),
          },
        ];
  }
  if (facts.configured.serviceCidrs) return [];
  const guess = DEFAULT_SERVICE_CIDRS.filter((range) => covers(entries, range));
  if (guess.length === 0) return [];
  const why = facts.network.serviceCidrsMissing ?? 'the cluster has no ServiceCIDR objects';
  const apiIps = facts.network.apiServerServiceIps ?? [];
  const outside = apiIps.filter(
    (ip) => !DEFAULT_SERVICE_CIDRS.some((range) => covers([range], ip)),
  );
  return [
    {
      code: 'no-proxy.service-range-guessed',
      severity: 'warning',
      message: `NO_PROXY's service range is a guess, kubeadm's ${guess.join(', ')}: ${why}${outside.length > 0 ? `, and the kubernetes Service's ${outside.join(', ')} lies outside it` : ''}`,
      fix: `${listFix(webhook, 'serviceCidrs', ['<the API server --service-cluster-ip-range>'])}${apiIps.length > 0 ? ` (the range holding ${apiIps.join(', ')})` : ''}`,
    },
  ];
}

function podIssues(entries: string[], facts: ClusterFacts, webhook: KfxWebhook): Issue[] {
  const nodeRanges = (facts.network.nodes ?? []).flatMap((node) => node.podCidrs);
  const outsideIps = facts.podIps.filter((ip) => !covers(entries, ip));
  if (nodeRanges.length > 0) {
    const missed = [...new Set(nodeRanges)].filter((range) => !covers(entries, range));
    if (missed.length === 0) return [];
    return [
      {
        code: 'no-proxy.pod-range',
        severity: 'error',
        message: `NO_PROXY misses the pod ranges ${shown(missed)} (the Nodes' podCIDRs): Pods called by IP go through the proxy`,
        fix: listFix(webhook, 'podCidrs', [...new Set(nodeRanges)]),
      },
    ];
  }
  const suggestion = suggestedPodRanges(facts.podIps);
  const value = suggestion.length > 0 ? suggestion : ["<the CNI's pod range>"];
  if (!facts.configured.podCidrs) {
    const guess = DEFAULT_POD_CIDRS.filter((range) => covers(entries, range));
    if (guess.length === 0 && outsideIps.length === 0) return [];
    return [
      {
        code: 'no-proxy.pod-range-guessed',
        severity: 'warning',
        message: `NO_PROXY's pod range is a guess, flannel's ${DEFAULT_POD_CIDRS.join(', ')}: no Node has spec.podCIDR${outsideIps.length > 0 ? `, and Pods are seen at ${shown(outsideIps)}, outside it` : ''}`,
        fix: listFix(webhook, 'podCidrs', value),
      },
    ];
  }
  if (outsideIps.length === 0) return [];
  return [
    {
      code: 'no-proxy.pod-ips-outside',
      severity: 'error',
      message: `Pods are seen at ${shown(outsideIps)}, outside NO_PROXY's pod range (podCidrs): Pods called by IP go through the proxy`,
      fix: listFix(webhook, 'podCidrs', value),
    },
  ];
}

function otherIssues(entries: string[], facts: ClusterFacts, webhook: KfxWebhook): Issue[] {
  const issues: Issue[] = [];
  const api = (facts.network.apiServerServiceIps ?? []).filter((ip) => !covers(entries, ip));
  if (api.length > 0) {
    issues.push({
      code: 'no-proxy.kubernetes-service',
      severity: 'error',
      message: `NO_PROXY misses ${api.join(', ')}, the kubernetes Service (KUBERNETES_SERVICE_HOST): API clients that read the proxy variables call the API server through the proxy`,
      fix: webhookValueFix(webhook, 'proxyInjector.config.apiServerServiceIp', api[0] ?? ''),
    });
  }
  const metadata = DEFAULT_METADATA_ENDPOINTS.filter(
    (endpoint) => !covers(entries, endpoint) && !coversDomain(entries, endpoint),
  );
  if (metadata.length > 0) {
    issues.push({
      code: 'no-proxy.metadata-endpoints',
      severity: 'warning',
      message: `NO_PROXY misses the cloud metadata endpoints ${metadata.join(', ')}: cloud SDKs would ask the proxy's host for credentials`,
      fix: listFix(webhook, 'metadataEndpoints', DEFAULT_METADATA_ENDPOINTS),
    });
  }
  const kubeflow = facts.kubeflowNamespaces.filter(
    (namespace) => !coversDomain(entries, namespace),
  );
  if (kubeflow.length > 0) {
    issues.push({
      code: 'no-proxy.kubeflow-namespaces',
      severity: 'warning',
      message: `NO_PROXY misses the Kubeflow namespaces ${shown(kubeflow, 5)}: calls to <service>.${kubeflow[0] ?? ''} go through the proxy`,
      fix: listFix(webhook, 'kubeflowNamespaces', [...new Set([...facts.kubeflowNamespaces])]),
    });
  }
  const profiles = facts.profileNamespaces.filter((namespace) => !coversDomain(entries, namespace));
  if (profiles.length > 0) {
    const configured = webhook.proxyInjectorConfig?.noProxy ?? [];
    issues.push({
      code: 'no-proxy.profile-namespaces',
      severity: 'warning',
      message: `NO_PROXY misses ${profiles.length} Profile namespace${profiles.length === 1 ? '' : 's'} (${shown(profiles)}): calls to <service>.${profiles[0] ?? ''} from other namespaces go through the proxy`,
      fix: listFix(webhook, 'noProxy', [
        ...configured,
        ...profiles.map((namespace) => `.${namespace}`),
      ]),
    });
  }
  return issues;
}

/** The findings for one NO_PROXY value (pure: the unit tests call it). */
function noProxyIssues(value: string, facts: ClusterFacts, webhook: KfxWebhook): Issue[] {
  const entries = noProxyEntries(value);
  return [
    ...serviceIssues(entries, facts, webhook),
    ...podIssues(entries, facts, webhook),
    ...otherIssues(entries, facts, webhook),
  ];
}

async function clusterFacts(
  cluster: Cluster,
  webhook: KfxWebhook,
  profileNamespaces: string[],
): Promise<ClusterFacts> {
  const [network, slices, namespaces] = await Promise.all([
    cluster.network(),
    cluster.endpointSlices(),
    cluster.namespaces(),
  ]);
  const nodeAddresses = new Set((network.nodes ?? []).flatMap((node) => node.addresses));
  const podIps = new Set<string>();
  for (const slice of slices) {
    for (const endpoint of slice.endpoints ?? []) {
      if (endpoint.targetRef?.kind !== 'Pod') continue;
      for (const address of endpoint.addresses ?? []) {
        if (!nodeAddresses.has(address)) podIps.add(address);
      }
    }
  }
  const config = webhook.proxyInjectorConfig;
  const kubeflow = config?.kubeflowNamespaces ?? DEFAULT_KUBEFLOW_NAMESPACES;
  return {
    network,
    podIps: [...podIps].sort(),
    kubeflowNamespaces: kubeflow.filter((namespace) => namespaces.has(namespace)),
    profileNamespaces,
    configured: {
      serviceCidrs: config?.serviceCidrs !== undefined,
      podCidrs: config?.podCidrs !== undefined,
    },
  };
}

export const noProxyCheck: Check = async ({ cluster, targets }) => {
  const webhook = (await kfxWebhooks(cluster)).find((each) => each.proxyInjector);
  if (!webhook) return skipped('kfx-webhook is not installed');
  const { namespaces, profileNamespaces } = await targets();
  const byValue = new Map<string, string[]>();
  for (const probe of await probes(cluster, namespaces)) {
    if (probe.outcome !== 'admitted') continue;
    const value = probe.pod.env.NO_PROXY ?? probe.pod.env.no_proxy;
    if (value === undefined) continue;
    byValue.set(value, [...(byValue.get(value) ?? []), probe.namespace]);
  }
  if (byValue.size === 0) return skipped('no probe Pod got NO_PROXY (see the injection check)');
  const facts = await clusterFacts(cluster, webhook, profileNamespaces);
  const findings: Finding[] = [];
  for (const [value, where] of byValue) {
    const objects = where.map((namespace) => objectName('Namespace', namespace));
    for (const issue of noProxyIssues(value, facts, webhook)) {
      findings.push({ check: 'no-proxy', ...issue, object: objects[0] ?? '', objects });
    }
  }
  return ran(findings);
};
