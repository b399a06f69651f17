// containerd for the node: every path (socket, root, state, CNI) in the node's own folder, the
// settings this kind of machine needs (no negative oom_score_adj, no AppArmor, cgroupfs), and no
// registry: images are imported, and any pull fails at once on a dead proxy, except from a test
// registry on the host's address (plain HTTP: see registryHostsConfig).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PAUSE_IMAGE } from './images.js';

const run = promisify(execFile);

export interface ContainerdPaths {
  dir: string;
  socket: string;
  cniConfDir: string;
  /** containerd's registry hosts folder (`<host:port>/hosts.toml`), read on every pull. */
  registryHostsDir: string;
}

export function containerdPaths(dir: string): ContainerdPaths {
  return {
    dir,
    socket: join(dir, 'containerd.sock'),
    cniConfDir: join(dir, 'cni', 'net.d'),
    registryHostsDir: join(dir, 'certs.d'),
  };
}

export function containerdConfig(paths: ContainerdPaths): string {
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  return `version = 2
root = "${join(paths.dir, 'root')}"
state = "${join(paths.dir, 'state')}"

[grpc]
  address = "${paths.socket}"
[ttrpc]
  address = "${paths.socket}.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "${join(paths.dir, 'opt')}"

[${cri}]
  sandbox_image = "${PAUSE_IMAGE}"
  # A negative oom_score_adj is refused here even as root.
  restrict_oom_score_adj = true
  disable_apparmor = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [${cri}.containerd]
    default_runtime_name = "runc"
    snapshotter = "overlayfs"
    [${cri}.containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [${cri}.containerd.runtimes.runc.options]
        SystemdCgroup = false
  [${cri}.cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "${paths.cniConfDir}"
  [${cri}.registry]
    config_path = "${paths.registryHostsDir}"
`;
}

/** A registry at `hostPort` spoken to over plain HTTP, as a hosts.toml says it. */
export function registryHostsConfig(hostPort: string): string {
  return `server = "http://${hostPort}"

[host."http://${hostPort}"]
  capabilities = ["pull", "resolve"]
`;
}

/**
 * containerd's environment: a proxy nobody listens on, so that a pull fails at once; only the
 * host's address on the node's network (`hostIp`, where a test registry may listen) is direct.
 */
export function noPullEnv(hostIp: string): NodeJS.ProcessEnv {
  return {
    HTTP_PROXY: 'http://127.0.0.1:9',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: hostIp,
    no_proxy: hostIp,
  };
}

/** `ctr` against this containerd, in the namespace the CRI uses. */
export async function ctr(paths: ContainerdPaths, args: readonly string[]): Promise<string> {
  try {
    const { stdout } = await run(
      'ctr',
      ['--address', paths.socket, '--namespace', 'k8s.io', ...args],
      {
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    return stdout;
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`ctr ${args.join(' ')}: ${(e.stderr ?? '').trim() || e.message}`, {
      cause: error,
    });
  }
}

/** Imports an image archive (OCI layout or docker-archive); returns the names it brought. */
export async function importArchive(paths: ContainerdPaths, archive: string): Promise<string[]> {
  const out = await ctr(paths, ['images', 'import', archive]);
  return [...out.matchAll(/^unpacking (\S+) \(/gm)].map((m) => m[1] ?? '');
}
