// The node's own network: a Linux bridge with a /24 of its own (10.233.N.0/24, the host at .1),
// claimed atomically by creating the bridge `kfxbrN`, so that two control planes never share
// one. Pods get addresses on it and nothing else: no gateway, no route, no masquerading, so
// nothing a pod sends can leave the bridge. Deleting the bridge takes the pods' veths with it.
import { execFileSync } from 'node:child_process';
import { removeNetwork } from './teardown.js';

export interface NodeNetwork {
  bridge: string;
  /** e.g. 10.233.7.0/24 */
  subnet: string;
  /** The host's address on the bridge: the node IP, where squid and test origins listen. */
  hostIp: string;
  /** First and last address pods get. */
  podRange: [string, string];
}

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
    const bridge = `kfxbr${n}`;
    try {
      ip(['link', 'add', bridge, 'type', 'bridge']);
    } catch {
      continue; // another control plane has it
    }
    const prefix = `10.233.${n}`;
    try {
      ip(['addr', 'add', `${prefix}.1/24`, 'dev', bridge]);
      ip(['link', 'set', bridge, 'up']);
    } catch (error) {
      removeNetwork(bridge);
      throw error;
    }
    return {
      bridge,
      subnet: `${prefix}.0/24`,
      hostIp: `${prefix}.1`,
      podRange: [`${prefix}.10`, `${prefix}.250`],
    };
  }
  throw new Error('no free 10.233.N.0/24 for a node bridge (250 in use?)');
}

/** The CNI configuration: bridge + host-local, nothing that routes. */
export function cniConfig(network: NodeNetwork, ipamDir: string): string {
  return JSON.stringify(
    {
      cniVersion: '0.4.0',
      name: 'kfx',
      plugins: [
        {
          type: 'bridge',
          bridge: network.bridge,
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
                },
              ],
            ],
            dataDir: ipamDir,
          },
        },
      ],
    },
    null,
    2,
  );
}
