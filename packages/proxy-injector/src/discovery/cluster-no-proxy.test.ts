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

  it('falls back to the defaults with a note saying what was assumed', () => {
    const s = settings({}, {});
    expect(sourceOf(s, '10.96.0.0/12')).toBe("default (kubeadm's service range)");
    expect(sourceOf(s, '10.244.0.0/16')).toBe("default (flannel's pod range)");
    expect(sourceOf(s, '10.96.0.1')).toBe('the first address of the service range');
    expect(s.noProxyNotes).toEqual([
      "service range not discovered (no ServiceCIDR objects read): assumed kubeadm's 10.96.0.0/12; set serviceCidrs if that is wrong",
      'pod range not discovered (Nodes not read): assumed 10.244.0.0/16; set podCidrs if that is wrong',
    ]);
    const calico = settings({}, { nodes: [node(0, '')], apiServerServiceIps: ['172.20.0.1'] });
    expect(calico.noProxyNotes).toContain(
      'the kubernetes Service IP 172.20.0.1 is outside the service range 10.96.0.0/12: set serviceCidrs',
    );
    expect(calico.noProxyNotes.join('\n')).toContain('no Node has spec.podCIDR');
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
