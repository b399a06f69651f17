// The node's own network: a /24 of its own (10.233.N.0/24), claimed atomically by creating the
// host's link `kfxbrN`, so that two control planes never share one. The node lives in a network
// namespace of its own (its iptables, hence its kube-proxy's Services, are its own): there a
// bridge `cni0` holds the pods and the node's address (.2), and the peer of `kfxbrN` joins it, so
// the host (.1: the apiserver, cluster DNS, squid, test origins) is on the pods' segment. Pods
// route only the service CIDR, through the node (.2), where kube-proxy translates it; nothing
// else has a route: no gateway, no masquerading, so nothing a pod sends leaves the subnet.
import { execFileSync } from 'node:child_process';
import { SERVICE_CIDR } from '../pki.js';
import { removeNetwork } from './teardown.js';

export interface NodeNetwork {
  /** The host's end of the link to the node (`kfxbrN`); deleting it takes the peer along. */
  hostLink: string;
  /** Its peer, moved into the node's network namespace and attached to its bridge. */
  peerLink: string;
  /** e.g. 10.233.7.0/24 */
  subnet: string;
  /** The host's address on it: where the apiserver, squid and test origins listen. */
  hostIp: string;
  /** The node's address on its bridge: the Node's InternalIP, kubelet and kube-proxy. */
  nodeIp: string;
  /** First and last address pods get. */
  podRange: [string, string];
}

/** The bridge inside the node's network namespace. */
const NODE_BRIDGE = 'cni0';

const ip = (args: readonly string[]) =>
  execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Third octets already routed on this host within 10.233.0.0/16. */
function takenOctets(): Set<number> {
  const taken = new Set<number>();
  for (const line of ip(['-4', 'route', 'show']).split('\n')) {
    const match = /^10\.233\.(\d+)\./.exec(line);
    if (match) taken.add(Number(match[1]));
  }
  return taken;
}

export function allocateNetwork(): NodeNetwork {
  const taken = takenOctets();
  const start = 1 + Math.floor(Math.random() * 250);
  for (let i = 0; i < 250; i++) {
    const n = ((start + i) % 250) + 1;
    if (taken.has(n)) continue;
    const hostLink = `kfxbr${n}`;
    const peerLink = `kfxbr${n}p`;
    try {
      ip(['link', 'add', hostLink, 'type', 'veth', 'peer', 'name', peerLink]);
    } catch {
      continue; // another control plane has it
    }
    const prefix = `10.233.${n}`;
    try {
      ip(['addr', 'add', `${prefix}.1/24`, 'dev', hostLink]);
      ip(['link', 'set', hostLink, 'up']);
    } catch (error) {
      removeNetwork(hostLink);
      throw error;
    }
    return {
      hostLink,
      peerLink,
      subnet: `${prefix}.0/24`,
      hostIp: `${prefix}.1`,
      nodeIp: `${prefix}.2`,
      podRange: [`${prefix}.10`, `${prefix}.250`],
    };
  }
  throw new Error('no free 10.233.N.0/24 for a node network (250 in use?)');
}

/**
 * The node's side, run inside its network namespace (`sh -c SCRIPT sh <peer link> <node
 * address/prefix>`): the bridge, the peer on it, forwarding for Services, and no ICMP redirects
 * (a redirect would tell a pod to send service traffic to the host, which routes elsewhere).
 */
export const NODE_NETWORK_SCRIPT = `set -e
ip link set lo up
ip link add ${NODE_BRIDGE} type bridge
for scope in all default; do echo 0 > /proc/sys/net/ipv4/conf/$scope/send_redirects; done
echo 0 > /proc/sys/net/ipv4/conf/${NODE_BRIDGE}/send_redirects
echo 1 > /proc/sys/net/ipv4/ip_forward
echo 1 > /proc/sys/net/bridge/bridge-nf-call-iptables
ip addr add "$2" dev ${NODE_BRIDGE}
ip link set ${NODE_BRIDGE} up
ip link set "$1" master ${NODE_BRIDGE} up
`;

/** The CNI configuration: bridge + host-local; a route to Services through the node only. */
export function cniConfig(network: NodeNetwork, ipamDir: string): string {
  return JSON.stringify(
    {
      cniVersion: '0.4.0',
      name: 'kfx',
      plugins: [
        {
          type: 'bridge',
          bridge: NODE_BRIDGE,
          isGateway: false,
          ipMasq: false,
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            ranges: [
              [
                {
                  subnet: network.subnet,
                  rangeStart: network.podRange[0],
                  rangeEnd: network.podRange[1],
                  gateway: network.nodeIp,
                },
              ],
            ],
            routes: [{ dst: SERVICE_CIDR, gw: network.nodeIp }],
            dataDir: ipamDir,
          },
        },
      ],
    },
    null,
    2,
  );
}
