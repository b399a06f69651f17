// The remote node's network: a namespace of its own, held by a process in the remote node's
// cgroup, joined by a veth pair (`kfxrmK` on the node's side) to the real node's network namespace,
// where kube-proxy serves NodePorts on the node's address. The pair has a /30 of its own
// (10.234.K.0/30: .1 the node's side, .2 the remote node's, its Pods' address); the remote side
// routes only the allowed addresses (/32 each, through .1) and its firewall lets only TCP to the
// allowed address:port pairs out. The node answers NodePort traffic through kube-proxy's
// masquerading; to any other allowed address it masquerades the /30 itself. Killing the holder
// (the remote node's cgroup) removes the namespace, the pair and the rules in it.
import { execFile, spawn } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { promisify } from 'node:util';
import { waitFor } from '../wait.js';
import { firewallRules, type Endpoint } from './firewall.js';

const exec = promisify(execFile);

export interface RemoteNetwork {
  /** The remote node's address: every one of its Pods has it. */
  address: string;
  /** The /30 joining it to the real node, e.g. `10.234.0.0/30`. */
  subnet: string;
  /** The real node's address on that /30. */
  gateway: string;
  /** The real node's end of the pair. */
  link: string;
  /** The pid holding the namespace (`nsenter --net=/proc/<it>/ns/net`). */
  pid: number;
  /** Removes what the real node holds for it (its masquerading rule). */
  stop(): Promise<void>;
}

export interface RemoteNetworkOptions {
  /** The pid holding the real node's network namespace. */
  nodePid: number;
  /** The real node's address (NodePorts). */
  nodeIp: string;
  allowed: readonly Endpoint[];
  /** A shell line that moves the shell into the remote node's cgroup. */
  joinCgroup: string;
  timeoutMs: number;
}

async function sh(pid: number, script: string, ...args: string[]): Promise<string> {
  try {
    const { stdout } = await exec('nsenter', [
      '-t',
      String(pid),
      '-n',
      '--',
      'sh',
      '-c',
      script,
      'sh',
      ...args,
    ]);
    return stdout;
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`the remote node's network: ${(e.stderr ?? e.message).trim()}`, {
      cause: error,
    });
  }
}

const netns = (pid: number | 'self') => {
  try {
    return readlinkSync(`/proc/${pid}/ns/net`);
  } catch {
    return undefined;
  }
};

/** Claims the first free `kfxrmK` in the node's namespace (creating it is the claim). */
async function claimLink(nodePid: number): Promise<number> {
  for (let k = 0; k < 250; k++) {
    try {
      await exec('nsenter', [
        '-t',
        String(nodePid),
        '-n',
        '--',
        'ip',
        'link',
        'add',
        `kfxrm${k}`,
        'type',
        'veth',
        'peer',
        'name',
        `kfxrm${k}p`,
      ]);
      return k;
    } catch {
      // taken by another remote node of this plane
    }
  }
  throw new Error('no free link kfxrm0…249 in the node’s network namespace');
}

const REMOTE_SCRIPT = `set -e
ip link set lo up
ip link set "$1" name eth0
ip addr add "$2" dev eth0
ip link set eth0 up
shift 2
for host in "$@"; do ip route add "$host/32" via "$GATEWAY" dev eth0; done
iptables-restore <<RULES
$RULES
RULES
`;

export async function startRemoteNetwork(options: RemoteNetworkOptions): Promise<RemoteNetwork> {
  const { nodePid } = options;
  const holder = spawn(
    'sh',
    ['-c', `set -e; ${options.joinCgroup}; exec unshare --net -- sleep infinity`],
    {
      stdio: 'ignore',
    },
  );
  const pid = holder.pid ?? 0;
  const own = netns('self');
  await waitFor(
    () => {
      const ns = netns(pid);
      if (holder.exitCode !== null) throw new Error('the remote node’s namespace holder exited');
      return Promise.resolve(
        ns && ns !== own
          ? { done: true as const, value: undefined }
          : { done: false as const, saw: 'no namespace yet' },
      );
    },
    { description: "the remote node's network namespace", timeoutMs: options.timeoutMs },
  );
  const k = await claimLink(nodePid);
  const link = `kfxrm${k}`;
  const subnet = `10.234.${k}.0/30`;
  const gateway = `10.234.${k}.1`;
  const address = `10.234.${k}.2`;
  const masquerade = `POSTROUTING -s ${subnet} -m comment --comment kfx-remote-${k} -j MASQUERADE`;
  const masquerades = options.allowed.some((e) => e.host !== options.nodeIp);
  const removeLink = () =>
    sh(nodePid, `ip link delete "$1" 2>/dev/null || true`, link).catch(() => undefined);
  try {
    await sh(
      nodePid,
      `set -e; ip link set "$1" netns "$2"; ip addr add "$3" dev "$4"; ip link set "$4" up`,
      `${link}p`,
      String(pid),
      `${gateway}/30`,
      link,
    );
    const hosts = [...new Set(options.allowed.map((e) => e.host))];
    await exec(
      'nsenter',
      [
        '-t',
        String(pid),
        '-n',
        '--',
        'sh',
        '-c',
        REMOTE_SCRIPT,
        'sh',
        `${link}p`,
        `${address}/30`,
        ...hosts,
      ],
      {
        env: { ...process.env, GATEWAY: gateway, RULES: firewallRules(options.allowed) },
      },
    ).catch((error: unknown) => {
      const e = error as { stderr?: string; message: string };
      throw new Error(`the remote node's network: ${(e.stderr ?? e.message).trim()}`, {
        cause: error,
      });
    });
    if (masquerades) await sh(nodePid, `iptables -t nat -A ${masquerade}`);
  } catch (error) {
    await removeLink();
    throw error;
  }
  return {
    address,
    subnet,
    gateway,
    link,
    pid,
    async stop() {
      if (masquerades) await sh(nodePid, `iptables -t nat -D ${masquerade}`).catch(() => undefined);
      await removeLink();
    },
  };
}
