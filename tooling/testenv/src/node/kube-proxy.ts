// kube-proxy for the real node, in the node's network namespace, so that its iptables rules are
// the node's alone (two nodes never overwrite each other's) and go with the namespace. It leaves
// every host-wide setting as it is: no conntrack limit or timeout, no localhost NodePorts (the
// route_localnet sysctl), no OOM score. Pods on the node's subnet keep their address through a
// Service (detectLocalMode ClusterCIDR): a backend sees which pod called it.
import { stringify } from 'yaml';

export interface KubeProxySettings {
  kubeconfig: string;
  nodeName: string;
  /** The node's address: healthz listens there, NodePorts answer there. */
  nodeIp: string;
  /** The pods' subnet. */
  podSubnet: string;
  healthzPort: number;
}

export function kubeProxyConfig(s: KubeProxySettings): string {
  return stringify({
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    clientConnection: { kubeconfig: s.kubeconfig },
    hostnameOverride: s.nodeName,
    mode: 'iptables',
    healthzBindAddress: `${s.nodeIp}:${s.healthzPort}`,
    metricsBindAddress: '127.0.0.1:10249',
    clusterCIDR: s.podSubnet,
    detectLocalMode: 'ClusterCIDR',
    nodePortAddresses: [`${s.nodeIp}/32`],
    iptables: { localhostNodePorts: false, syncPeriod: '30s', minSyncPeriod: '0s' },
    conntrack: {
      maxPerCore: 0,
      min: 0,
      tcpEstablishedTimeout: '0s',
      tcpCloseWaitTimeout: '0s',
      udpTimeout: '0s',
      udpStreamTimeout: '0s',
    },
    oomScoreAdj: 0,
  });
}

/** What lets kube-proxy read Services and EndpointSlices: the role a real cluster gives it. */
export const KUBE_PROXY_USER = 'system:kube-proxy';

export const kubeProxyBinding = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name: 'kfx-testenv:node-proxier' },
  roleRef: {
    apiGroup: 'rbac.authorization.k8s.io',
    kind: 'ClusterRole',
    name: 'system:node-proxier',
  },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: KUBE_PROXY_USER }],
};
