// The kubelet's configuration for a node inside the test's own namespaces: cgroupfs under
// the node's cgroup folder, no swap or cgroup-v1 refusal, the cluster DNS for pods and none of
// the host's (nothing a pod asks can be forwarded), eviction thresholds that
// a busy test machine never reaches, images never garbage-collected (they cannot be pulled
// again), and x509 client certificates from the test CA (the apiserver reaches it for logs).
import { stringify } from 'yaml';

export interface KubeletSettings {
  /** The kubelet's cgroupRoot, e.g. `/kfx-node-7` (it makes `kubepods` inside). */
  cgroupRoot: string;
  containerdSocket: string;
  /** The node IP: the host's address on the bridge. */
  address: string;
  port: number;
  healthzPort: number;
  clientCaFile: string;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  /** The cluster DNS's Service IP: every pod's nameserver. */
  clusterDns: string;
  clusterDomain: string;
}

export function kubeletConfig(s: KubeletSettings): string {
  return stringify({
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    failCgroupV1: false,
    cgroupDriver: 'cgroupfs',
    cgroupRoot: s.cgroupRoot,
    cgroupsPerQOS: true,
    failSwapOn: false,
    resolvConf: '',
    clusterDNS: [s.clusterDns],
    clusterDomain: s.clusterDomain,
    containerRuntimeEndpoint: `unix://${s.containerdSocket}`,
    address: s.address,
    port: s.port,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: s.healthzPort,
    tlsCertFile: s.tlsCertFile,
    tlsPrivateKeyFile: s.tlsPrivateKeyFile,
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: false },
      x509: { clientCAFile: s.clientCaFile },
    },
    authorization: { mode: 'AlwaysAllow' },
    evictionHard: {
      'memory.available': '1Mi',
      'nodefs.available': '1%',
      'nodefs.inodesFree': '1%',
      'imagefs.available': '1%',
    },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    podLogsDir: '/var/log/pods',
    shutdownGracePeriod: '0s',
    serializeImagePulls: false,
  });
}
