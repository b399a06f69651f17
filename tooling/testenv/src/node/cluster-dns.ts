// The cluster DNS of a control plane with a real node: CoreDNS with its `kubernetes` plugin,
// reading the test apiserver, on the host's address on the node's network, behind the `kube-dns`
// Service at the cluster IP the kubelet gives pods as their nameserver. So `<service>.<namespace>`
// resolves in a pod as in any cluster. It answers the cluster's zones only: a name outside them
// is refused at once, never forwarded (nothing leaves this machine; the internet a pod sees is
// reached through the egress proxy, which resolves names itself).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitUntilHealthy } from '../health.js';
import { freePort } from '../ports.js';
import type { ManagedProcess } from '../processes.js';
import { applyHostService } from './host-service.js';

export const CLUSTER_DOMAIN = 'cluster.local';
/** The `kube-dns` Service's cluster IP, in the service CIDR (pki.ts). */
export const CLUSTER_DNS_IP = '10.0.0.10';

export interface ClusterDnsOptions {
  coredns: string;
  /** Where the Corefile goes. */
  dir: string;
  /** The host's address on the node's network. */
  hostIp: string;
  /** Admin kubeconfig (context `kfx-testenv`). */
  kubeconfigPath: string;
  start(name: string, command: string, args: string[]): ManagedProcess;
  timeoutMs: number;
}

function corefile(hostIp: string, kubeconfigPath: string, readyPort: number): string {
  return `${CLUSTER_DOMAIN} in-addr.arpa ip6.arpa {
    bind ${hostIp}
    errors
    log
    ready 127.0.0.1:${readyPort}
    kubernetes ${CLUSTER_DOMAIN} in-addr.arpa ip6.arpa {
        kubeconfig ${kubeconfigPath} kfx-testenv
        pods insecure
        ttl 5
    }
}
`;
}

/** Starts CoreDNS, waits until it has read the API, and makes the `kube-dns` Service. */
export async function startClusterDns(options: ClusterDnsOptions): Promise<ManagedProcess> {
  const [port, readyPort] = await Promise.all([freePort(), freePort()]);
  const file = join(options.dir, 'Corefile');
  writeFileSync(file, corefile(options.hostIp, options.kubeconfigPath, readyPort));
  const coredns = options.start('coredns', options.coredns, [
    '-conf',
    file,
    '-dns.port',
    String(port),
  ]);
  await waitUntilHealthy(coredns, `http://127.0.0.1:${readyPort}/ready`, {
    timeoutMs: options.timeoutMs,
  });
  await applyHostService(options.kubeconfigPath, {
    namespace: 'kube-system',
    name: 'kube-dns',
    ip: options.hostIp,
    clusterIP: CLUSTER_DNS_IP,
    ports: [
      { name: 'dns', port: 53, targetPort: port, protocol: 'UDP' },
      { name: 'dns-tcp', port: 53, targetPort: port, protocol: 'TCP' },
    ],
  });
  return coredns;
}
