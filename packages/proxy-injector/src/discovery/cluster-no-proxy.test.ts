import { describe, expect, it } from 'vitest';
import { parseProxyInjectorConfig, type ProxyInjectorConfigInput } from '../config.js';
import { resolveProxySettings } from '../settings.js';
import { MAX_POD_CIDR_ENTRIES } from './cluster-no-proxy.js';
import { summarizeNode, type DiscoveredNetwork, type DiscoveredNode } from './network.js';

const settings = (input: ProxyInjectorConfigInput, discovered?: DiscoveredNetwork) =>
  resolveProxySettings(
    parseProxyInjectorConfig({ httpProxy: 'http://proxy:3128', ...input }),
    {},
    discovered,
  );

const node = (i: number, podCidr = `10.244.${i}.0/24`): DiscoveredNode => ({
  name: `node-${i}`,
  addresses: [`192.168.10.${i + 10}`],
  hostnames: [`node-${i}`, `node-${i}.lab.internal`],
  podCidrs: podCidr ? [podCidr] : [],
});

const sourceOf = (s: ReturnType<typeof settings>, entry: string) =>
  s.noProxySources.find((group) => group.entries.includes(entry))?.source;

describe('NO_PROXY for a Kubeflow cluster', () => {
  it('covers <service>.<namespace> short names of the Kubeflow namespaces by default', () => {
    const s = settings({});
    // ml-pipeline.kubeflow, minio-service.kubeflow (kubeflow/pipelines#9702) need `.kubeflow`:
    // `.svc` only matches the long forms.
    for (const suffix of ['.kubeflow', '.istio-system', '.knative-serving', '.kubeflow-system']) {
      expect(s.noProxy).toContain(suffix);
      expect(sourceOf(s, suffix)).toBe('Kubeflow namespaces (kubeflowNamespaces)');
    }
    expect(
      settings({ kubeflowNamespaces: ['ml'] }).noProxy.filter((e) => /^\.(ml|kubeflow)$/.test(e)),
    ).toEqual(['.ml']);
  });

  it('uses the discovered ranges and the kubernetes Service IP instead of kubeadm defaults', () => {
    const s = settings(
      {},
      {
        serviceCidrs: ['10.43.0.0/16'],
        apiServerServiceIps: ['10.43.0.1'],
        nodes: [node(0), node(1)],
      },
    );
    expect(s.noProxy).not.toContain('10.96.0.0/12');
    expect(s.noProxy).not.toContain('10.244.0.0/16');
    expect(sourceOf(s, '10.43.0.0/16')).toBe('discovered from the ServiceCIDR objects');
    expect(sourceOf(s, '10.244.0.0/23')).toBe('discovered from spec.podCIDRs of 2 Nodes');
    expect(sourceOf(s, '10.43.0.1')).toBe('discovered from Service default/kubernetes');
    expect(sourceOf(s, '192.168.10.11')).toBe('discovered from Nodes (addresses and host names)');
    expect(s.noProxy).toEqual(expect.arrayContaining(['node-1', 'node-1.lab.internal']));
    expect(s.noProxyNotes).toEqual([]);
  });

  it('lets the configuration win over discovery, key by key', () => {
    const s = settings(
      { serviceCidrs: ['10.96.0.0/12'], apiServerServiceIp: '10.96.0.10' },
      { serviceCidrs: ['10.43.0.0/16'], apiServerServiceIps: ['10.43.0.1'], nodes: [node(0)] },
    );
    expect(sourceOf(s, '10.96.0.0/12')).toBe('config (serviceCidrs)');
    expect(sourceOf(s, '10.96.0.10')).toBe('config (apiServerServiceIp)');
    expect(s.noProxy).not.toContain('10.43.0.0/16');
    expect(sourceOf(s, '10.244.0.0/24')).toBe('discovered from spec.podCIDRs of 1 Node');
  });

  it('says loudly that a range it could not discover is a guess, and why', () => {
    const s = settings({}, {});
    expect(sourceOf(s, '10.96.0.0/12')).toBe("guess (kubeadm's service range)");
    expect(sourceOf(s, '10.244.0.0/16')).toBe("guess (flannel's pod range)");
    expect(sourceOf(s, '10.96.0.1')).toBe('the first address of the service range');
    expect(s.noProxyGuesses.map((g) => g.range)).toEqual(['service', 'pod']);
    expect(s.noProxyNotes).toEqual([
      "service range is a GUESS, kubeadm's 10.96.0.0/12: no ServiceCIDR objects read; set serviceCidrs to the cluster's service range",
      "pod range is a GUESS, flannel's 10.244.0.0/16: Nodes not read; set podCidrs to the cluster's pod range",
    ]);
    const calico = settings({}, { nodes: [node(0, '')], apiServerServiceIps: ['172.20.0.1'] });
    expect(calico.noProxyNotes).toContain(
      'the kubernetes Service IP 172.20.0.1 is outside the service range 10.96.0.0/12: set serviceCidrs',
    );
  });

  it('names the server version when it has no ServiceCIDR objects, and the CNIs that leave podCIDR empty', () => {
    // EKS with the VPC CNI (or AKS with Azure CNI) on Kubernetes 1.30: no ServiceCIDR objects,
    // Nodes without spec.podCIDR.
    const eks = settings(
      {},
      {
        serviceCidrsMissing:
          'Kubernetes v1.30.4-eks-a737599 does not serve ServiceCIDR (networking.k8s.io/v1): it came with 1.33',
        apiServerServiceIps: ['172.20.0.1'],
        nodes: [node(0, ''), node(1, '')],
      },
    );
    expect(eks.noProxyGuesses.map((g) => g.range)).toEqual(['service', 'pod']);
    expect(eks.noProxyNotes).toEqual(
      expect.arrayContaining([
        "service range is a GUESS, kubeadm's 10.96.0.0/12: Kubernetes v1.30.4-eks-a737599 does not serve ServiceCIDR (networking.k8s.io/v1): it came with 1.33; set serviceCidrs to the cluster's service range",
        "pod range is a GUESS, flannel's 10.244.0.0/16: no Node has spec.podCIDR (CNIs such as the EKS VPC CNI, Azure CNI and Calico give Pods addresses of their own pools); set podCidrs to the cluster's pod range",
      ]),
    );
  });

  it('guesses nothing once the configuration gives both ranges', () => {
    const s = settings({ serviceCidrs: ['172.20.0.0/16'], podCidrs: ['10.0.0.0/16'] }, {});
    expect(s.noProxyGuesses).toEqual([]);
    expect(s.noProxyNotes).toEqual([]);
    expect(sourceOf(s, '172.20.0.0/16')).toBe('config (serviceCidrs)');
    expect(sourceOf(s, '10.0.0.0/16')).toBe('config (podCidrs)');
    expect(sourceOf(s, '172.20.0.1')).toBe('the first address of the service range');
  });

  it('keeps the cloud metadata endpoints off the proxy, which would answer with its own identity', () => {
    const s = settings({});
    const metadata = [
      '169.254.169.254',
      '169.254.170.23',
      'fd00:ec2::254',
      'metadata.google.internal',
    ];
    for (const entry of metadata) {
      expect(s.noProxy).toContain(entry);
      expect(sourceOf(s, entry)).toBe('cloud metadata endpoints (metadataEndpoints)');
    }
    // Right after the cluster names: before the ranges, so never cut off with them.
    expect(s.noProxy.indexOf('169.254.169.254')).toBe(
      s.noProxy.indexOf('kubernetes.default.svc') + 1,
    );
    const none = settings({ metadataEndpoints: [] });
    expect(none.noProxy.filter((e) => metadata.includes(e))).toEqual([]);
    expect(settings({ metadataEndpoints: ['100.100.100.200'] }).noProxy).toContain(
      '100.100.100.200',
    );
  });

  it('keeps NO_PROXY short on a large cluster: pod ranges aggregated, node entries capped', () => {
    const many = Array.from({ length: 300 }, (_, i) =>
      node(i % 250, `10.244.${(i * 7) % 256}.0/24`),
    );
    const s = settings({}, { nodes: many });
    const pods = s.noProxySources.find((g) => g.source.startsWith('discovered from spec.podCIDRs'));
    expect(pods?.entries.length).toBeLessThanOrEqual(MAX_POD_CIDR_ENTRIES);
    expect(pods?.entries).toEqual(['10.244.0.0/16']);
    expect(s.noProxy.some((e) => e.startsWith('node-') || e.startsWith('192.168.'))).toBe(false);
    expect(s.noProxyNotes).toContain(
      "300 Nodes, more than maxNodes (100): their addresses and host names are left out of NO_PROXY to keep it short; add the nodes' subnet to noProxy",
    );
    expect(s.noProxy.join(',').length).toBeLessThan(400);
    // Under the cap, every node is listed; with maxNodes 0 never.
    expect(settings({ maxNodes: 300 }, { nodes: many }).noProxy).toContain('node-249');
    expect(settings({ maxNodes: 0 }, { nodes: [node(1)] }).noProxy).not.toContain('node-1');
  });

  it('reads a Node as the API serves it', () => {
    expect(
      summarizeNode({
        metadata: { name: 'Worker-1' },
        spec: { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24', 'fd00:10:244:1::/64'] },
        status: {
          addresses: [
            { type: 'InternalIP', address: '192.168.1.5' },
            { type: 'ExternalIP', address: '203.0.113.5' },
            { type: 'Hostname', address: 'worker-1' },
            { type: 'InternalDNS', address: 'worker-1.corp.internal' },
            { type: 'InternalIP', address: 'not-an-ip' },
          ],
        },
      }),
    ).toEqual({
      name: 'Worker-1',
      addresses: ['192.168.1.5', '203.0.113.5'],
      hostnames: ['worker-1', 'worker-1.corp.internal'],
      podCidrs: ['10.244.1.0/24', 'fd00:10:244:1::/64'],
    });
  });
});
