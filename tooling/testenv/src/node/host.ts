// Whether this machine can run a real node, and if not, one line saying why and what to
// install. A node needs root (it runs containerd, creates a bridge and cgroups) and a few Debian
// packages; without them tests say "skipped: <reason>" and the demo runs its pods on kwok.
import { accessSync, closeSync, constants, existsSync, openSync, readSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Debian package of each program or file the node uses. */
const NEEDS: readonly { what: string; package: string }[] = [
  { what: 'containerd', package: 'containerd' },
  { what: 'containerd-shim-runc-v2', package: 'containerd' },
  { what: 'ctr', package: 'containerd' },
  { what: 'runc', package: 'runc' },
  { what: '/usr/lib/cni/bridge', package: 'containernetworking-plugins' },
  { what: '/usr/lib/cni/host-local', package: 'containernetworking-plugins' },
  { what: '/usr/lib/cni/loopback', package: 'containernetworking-plugins' },
  { what: 'squid', package: 'squid' },
  { what: 'unshare', package: 'util-linux' },
  { what: 'nsenter', package: 'util-linux' },
  { what: 'ip', package: 'iproute2' },
  // kube-proxy's Services (iptables mode, in the node's own network namespace).
  { what: 'iptables', package: 'iptables' },
  { what: 'iptables-restore', package: 'iptables' },
  { what: 'gcc', package: 'gcc' },
];

/** The Debian packages a real node needs, for set-up scripts. */
export const NODE_PACKAGES: readonly string[] = [
  ...new Set([...NEEDS.map((n) => n.package), 'busybox-static']),
];

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** A program on PATH (or the sbin folders root has), or an absolute path. */
function which(what: string): string | undefined {
  if (what.startsWith('/')) return executable(what) ? what : undefined;
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin'];
  return dirs.map((dir) => join(dir, what)).find(executable);
}

/** True for an ELF executable without a program interpreter (statically linked). */
export function isStaticElf(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(64);
    readSync(fd, head, 0, 64, 0);
    if (head.readUInt32BE(0) !== 0x7f454c46 || head[4] !== 2) return false;
    const phoff = Number(head.readBigUInt64LE(32));
    const phentsize = head.readUInt16LE(54);
    const phnum = head.readUInt16LE(56);
    const table = Buffer.alloc(phentsize * phnum);
    readSync(fd, table, 0, table.length, phoff);
    for (let i = 0; i < phnum; i++) {
      if (table.readUInt32LE(i * phentsize) === 3) return false; // PT_INTERP
    }
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const BRIDGE_NETFILTER = '/proc/sys/net/bridge/bridge-nf-call-iptables';

/** A static busybox, for the small test images. */
export const BUSYBOX = '/bin/busybox';

export interface NodeSupport {
  available: boolean;
  /** Why not, as one line naming what is missing and how to get it. */
  reason?: string;
}

/** Whether a real node can run here; checked once per process. */
export function realNodeSupport(): NodeSupport {
  cached ??= check();
  return cached;
}
let cached: NodeSupport | undefined;

function check(): NodeSupport {
  if (process.platform !== 'linux') {
    return { available: false, reason: `a real node needs Linux (this is ${process.platform})` };
  }
  if (process.getuid?.() !== 0) {
    return {
      available: false,
      reason:
        'a real node needs root (it runs containerd and a kubelet, makes a bridge and cgroups)',
    };
  }
  if (process.env.KFX_REAL_NODE === '0') {
    return { available: false, reason: 'KFX_REAL_NODE=0 turns the real node off' };
  }
  const missing = NEEDS.filter((n) => !which(n.what));
  if (!isStaticElf(BUSYBOX))
    missing.push({ what: `a static ${BUSYBOX}`, package: 'busybox-static' });
  if (missing.length > 0) {
    const packages = [...new Set(missing.map((m) => m.package))];
    return {
      available: false,
      reason: `a real node needs ${missing.map((m) => m.what).join(', ')} (Debian: apt-get install ${packages.join(' ')})`,
    };
  }
  // Replies from a Service's backend on the same bridge are un-translated by bridged netfilter.
  if (!existsSync(BRIDGE_NETFILTER)) {
    return {
      available: false,
      reason: `a real node needs the br_netfilter kernel module (${BRIDGE_NETFILTER} is missing: modprobe br_netfilter)`,
    };
  }
  return { available: true };
}
