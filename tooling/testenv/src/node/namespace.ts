// The node's namespaces: a holder process in a private mount namespace and a network namespace of
// its own, in the node's cgroup. The mount namespace puts tmpfs over the paths the kubelet fixes
// and files over the sysctls it sets, so the host keeps its own; the network namespace takes the
// peer of the node's host link and makes the node's bridge (network.ts). The node's daemons join
// both with nsenter. When the last process in them is killed, every mount, the bridge and the
// node's iptables rules go with them.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ManagedProcess } from '../processes.js';
import { waitFor } from '../wait.js';
import { NODE_NETWORK_SCRIPT, type NodeNetwork } from './network.js';

const exec = promisify(execFile);

const NAMESPACE_SCRIPT = `set -e
mount --bind "$1/sys/overcommit_memory" /proc/sys/vm/overcommit_memory
mount --bind "$1/sys/panic" /proc/sys/kernel/panic
mount --bind "$1/sys/panic_on_oops" /proc/sys/kernel/panic_on_oops
for path in /run /var/lib /var/log; do mount -t tmpfs -o mode=755 kfx-node "$path"; done
mkdir -p /var/lib/kubelet /var/log/pods /var/log/containers /run/containerd
: > "$1/namespace.ready"
exec sleep infinity
`;

export interface NodeNamespace {
  holder: ManagedProcess;
  /** A shell line that runs `command` in the node's cgroup and namespaces. */
  inside(command: string): string;
}

export async function startNodeNamespace(options: {
  /** The node's folder. */
  dir: string;
  network: NodeNetwork;
  /** A shell line that moves the shell into the node's daemons cgroup. */
  joinCgroup: string;
  start(name: string, command: string, args: string[]): ManagedProcess;
  timeoutMs: number;
}): Promise<NodeNamespace> {
  const { dir, network } = options;
  mkdirSync(join(dir, 'sys'), { recursive: true });
  // What the kubelet writes to these sysctls lands in files; the host keeps its values.
  writeFileSync(join(dir, 'sys', 'overcommit_memory'), '1\n');
  writeFileSync(join(dir, 'sys', 'panic'), '10\n');
  writeFileSync(join(dir, 'sys', 'panic_on_oops'), '1\n');
  writeFileSync(join(dir, 'namespace.sh'), NAMESPACE_SCRIPT);
  const holder = options.start('node-namespace', 'sh', [
    '-c',
    `${options.joinCgroup}; exec unshare --mount --net --propagation private --fork -- sh "$0" "$1"`,
    join(dir, 'namespace.sh'),
    dir,
  ]);
  await waitFor(
    () => {
      if (existsSync(join(dir, 'namespace.ready'))) {
        return Promise.resolve({ done: true as const, value: undefined });
      }
      if (holder.exitStatus()) {
        throw new Error(`the node's namespaces did not start:\n${holder.tail()}`);
      }
      return Promise.resolve({ done: false as const, saw: 'no namespace yet' });
    },
    { description: "the node's namespaces", timeoutMs: options.timeoutMs },
  );
  // unshare itself (the holder's pid after exec) is in the new namespaces.
  const pid = String(holder.child.pid ?? 0);
  try {
    await exec('ip', ['link', 'set', network.peerLink, 'netns', pid]);
    const prefix = network.subnet.split('/')[1] ?? '24';
    await exec('nsenter', [
      '-t',
      pid,
      '-n',
      '--',
      'sh',
      '-c',
      NODE_NETWORK_SCRIPT,
      'sh',
      network.peerLink,
      `${network.nodeIp}/${prefix}`,
    ]);
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`the node's network did not start: ${(e.stderr ?? e.message).trim()}`, {
      cause: error,
    });
  }
  return {
    holder,
    inside: (command) => `${options.joinCgroup}; exec nsenter -t ${pid} -m -n -- ${command}`,
  };
}
