// A real node for the test control plane: containerd, runc and the CNI bridge plugin from
// Debian, a kubelet built from the Kubernetes module, all inside a private mount namespace (so
// the kubelet's fixed paths and sysctls touch nothing on the host) and in cgroup folders and a
// bridge of their own (so two control planes can each run one). Pods really run: their images
// are imported into containerd, never pulled. stop() kills everything in the node's cgroups and
// deletes its bridge; an exit hook and the detached reaper do the same if the test dies first.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { CertificateAuthority } from '@kfx/dev-certs';
import { writeKubeconfig } from '../kubeconfig.js';
import { applyManifests } from '../objects.js';
import type { ManagedProcess } from '../processes.js';
import { waitFor } from '../wait.js';
import { createCgroup, joinDaemonsScript } from './cgroups.js';
import {
  containerdConfig,
  containerdPaths,
  ctr,
  importArchive,
  NO_PULL_ENV,
  type ContainerdPaths,
} from './containerd.js';
import { pauseImageArchive, writeShellImage, type ShellImageOptions } from './images.js';
import { kubeletConfig } from './kubelet.js';
import { cniConfig, type NodeNetwork } from './network.js';
import { cgroupPids, teardownNode, type NodeTraces } from './teardown.js';

const exec = promisify(execFile);

const NODE_NAME = 'kfx-node';
/** Written into the control plane's folder for the reaper. */
const NODE_TRACES_FILE = 'node.json';

export interface RealNode {
  /** The Node's name in the API: `kfx-node`. */
  name: string;
  /** The node IP: the host's address on the node's bridge. Pods reach the host here. */
  ip: string;
  /** The pods' subnet, e.g. `10.233.7.0/24`. */
  subnet: string;
  bridge: string;
  /** kubelet and containerd logs. */
  logFiles: Record<string, string>;
  /**
   * Imports an image into the node: an archive (OCI layout or docker-archive), or a podman image
   * reference (saved from podman's storage). `name` also tags it under that reference, e.g. the
   * `docker.io/kfx/webhook:0.1.0` a chart names. Resolves with the node's names for it.
   */
  loadImage(source: string, options?: { name?: string }): Promise<string[]>;
  /**
   * Writes a busybox image (sh and friends, plus `/usr/bin/fetch`, a static HTTP client that
   * honours HTTP(S)_PROXY and NO_PROXY as Go, Python and curl do) with the given extra files and
   * loads it; resolves with its name.
   */
  loadShellImage(options: Omit<ShellImageOptions, 'fetch'>): Promise<string>;
  /** The node's images, by reference. */
  images(): Promise<string[]>;
  /** Every process of the node (its daemons, shims and containers), from its cgroups. */
  pids(): number[];
  stop(): Promise<void>;
}

export interface RealNodeOptions {
  /** The control plane's folder; the node works in `<dir>/node`. */
  dir: string;
  network: NodeNetwork;
  ca: CertificateAuthority;
  caFile: string;
  /** The apiserver as the kubelet reaches it. */
  server: string;
  adminKubeconfig: string;
  kubeConfig: KubeConfig;
  kubelet: string;
  /** The static HTTP client put into shell images. */
  fetch: string;
  /** The binary cache, where the pause image is kept. */
  cacheDir: string;
  /** Starts a process under the control plane's reaper and log files. */
  start(name: string, command: string, args: string[], env?: NodeJS.ProcessEnv): ManagedProcess;
  timeoutMs: number;
  progress: (line: string) => void;
}

const NAMESPACE_SCRIPT = `set -e
mount --bind "$1/sys/overcommit_memory" /proc/sys/vm/overcommit_memory
mount --bind "$1/sys/panic" /proc/sys/kernel/panic
mount --bind "$1/sys/panic_on_oops" /proc/sys/kernel/panic_on_oops
for path in /run /var/lib /var/log; do mount -t tmpfs -o mode=755 kfx-node "$path"; done
mkdir -p /var/lib/kubelet /var/log/pods /var/log/containers /run/containerd
: > "$1/namespace.ready"
exec sleep infinity
`;

export async function startRealNode(options: RealNodeOptions): Promise<RealNode> {
  const { network, progress, timeoutMs } = options;
  const dir = join(options.dir, 'node');
  const cgroup = `kfx-node-${network.bridge.replace(/^kfxbr/, '')}`;
  const traces: NodeTraces = { cgroup, bridge: network.bridge };
  writeFileSync(join(options.dir, NODE_TRACES_FILE), JSON.stringify(traces));
  const onExit = () => teardownNode(traces);
  process.on('exit', onExit);
  let stopped = false;
  const stop = async (processes: ManagedProcess[]) => {
    if (stopped) return;
    stopped = true;
    process.off('exit', onExit);
    const left = teardownNode(traces);
    await Promise.all(processes.map((p) => p.exited));
    if (left.length > 0) throw new Error(`the node left cgroups behind: ${left.join(', ')}`);
  };

  const processes: ManagedProcess[] = [];
  try {
    createCgroup(cgroup);
    const join_ = joinDaemonsScript(cgroup);
    const paths = containerdPaths(join(dir, 'containerd'));
    for (const sub of ['sys', 'kubelet', paths.cniConfDir, join(dir, 'cni', 'ipam')]) {
      mkdirSync(join(dir, sub), { recursive: true });
    }
    mkdirSync(paths.cniConfDir, { recursive: true });
    // What the kubelet writes to these sysctls lands in files; the host keeps its values.
    writeFileSync(join(dir, 'sys', 'overcommit_memory'), '1\n');
    writeFileSync(join(dir, 'sys', 'panic'), '10\n');
    writeFileSync(join(dir, 'sys', 'panic_on_oops'), '1\n');
    writeFileSync(join(dir, 'namespace.sh'), NAMESPACE_SCRIPT);
    writeFileSync(
      join(paths.cniConfDir, '10-kfx.conflist'),
      cniConfig(network, join(dir, 'cni', 'ipam')),
    );
    writeFileSync(join(dir, 'containerd.toml'), containerdConfig(paths));

    progress('starting the node: mount namespace');
    const holder = options.start('node-namespace', 'sh', [
      '-c',
      `${join_}; exec unshare --mount --propagation private --fork -- sh "$0" "$1"`,
      join(dir, 'namespace.sh'),
      dir,
    ]);
    processes.push(holder);
    await waitFor(
      () => {
        if (existsSync(join(dir, 'namespace.ready'))) {
          return Promise.resolve({ done: true as const, value: undefined });
        }
        if (holder.exitStatus()) {
          throw new Error(`the node's mount namespace did not start:\n${holder.tail()}`);
        }
        return Promise.resolve({ done: false as const, saw: 'no namespace yet' });
      },
      { description: "the node's mount namespace", timeoutMs },
    );
    const inNamespace = (command: string) =>
      `${join_}; exec nsenter -t ${holder.child.pid ?? 0} -m -- ${command}`;

    progress('starting the node: containerd');
    const containerd = options.start(
      'containerd',
      'sh',
      ['-c', inNamespace(`containerd --config ${join(dir, 'containerd.toml')}`)],
      { ...process.env, ...NO_PULL_ENV },
    );
    processes.push(containerd);
    await waitFor(
      async () => {
        if (containerd.exitStatus()) throw new Error(`containerd exited:\n${containerd.tail()}`);
        try {
          await ctr(paths, ['version']);
          return { done: true, value: undefined };
        } catch (error) {
          return { done: false, saw: (error as Error).message };
        }
      },
      { description: 'containerd to answer', timeoutMs },
    );
    await importArchive(paths, pauseImageArchive(options.cacheDir));

    progress('starting the node: kubelet');
    const node = options.ca.issue({
      commonName: `system:node:${NODE_NAME}`,
      organizations: ['system:nodes'],
      usage: 'client',
    });
    const serving = options.ca.issue({ commonName: NODE_NAME, ipAddresses: [network.hostIp] });
    const kubeletDir = join(dir, 'kubelet');
    writeFileSync(join(kubeletDir, 'serving.crt'), serving.cert);
    writeFileSync(join(kubeletDir, 'serving.key'), serving.key, { mode: 0o600 });
    writeKubeconfig(join(kubeletDir, 'kubeconfig'), {
      server: options.server,
      caCert: options.ca.cert,
      user: `system:node:${NODE_NAME}`,
      clientCert: node.cert,
      clientKey: node.key,
    });
    writeFileSync(
      join(kubeletDir, 'config.yaml'),
      kubeletConfig({
        cgroupRoot: `/${cgroup}`,
        containerdSocket: paths.socket,
        address: network.hostIp,
        port: 10250,
        healthzPort: 0,
        clientCaFile: options.caFile,
        tlsCertFile: join(kubeletDir, 'serving.crt'),
        tlsPrivateKeyFile: join(kubeletDir, 'serving.key'),
      }),
    );
    // The test apiserver authorizes by RBAC alone: nodes get the system:node role.
    await applyManifests(options.adminKubeconfig, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'kfx-testenv:nodes' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:node' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:nodes' }],
    } as never);
    const kubelet = options.start('kubelet', 'sh', [
      '-c',
      inNamespace(
        [
          options.kubelet,
          `--config=${join(kubeletDir, 'config.yaml')}`,
          `--kubeconfig=${join(kubeletDir, 'kubeconfig')}`,
          `--node-ip=${network.hostIp}`,
          `--hostname-override=${NODE_NAME}`,
          '--root-dir=/var/lib/kubelet',
          '--cert-dir=/var/lib/kubelet/pki',
        ].join(' '),
      ),
    ]);
    processes.push(kubelet);
    const core = options.kubeConfig.makeApiClient(CoreV1Api);
    await waitFor(
      async () => {
        if (kubelet.exitStatus()) throw new Error(`the kubelet exited:\n${kubelet.tail()}`);
        const found = await core.readNode({ name: NODE_NAME }).catch(() => undefined);
        const ready = found?.status?.conditions?.find((c) => c.type === 'Ready');
        return ready?.status === 'True'
          ? { done: true, value: undefined }
          : {
              done: false,
              saw: ready ? `Ready=${ready.status}: ${ready.message ?? ''}` : 'no Node yet',
            };
      },
      { description: `Node ${NODE_NAME} to be Ready`, timeoutMs },
    );

    return {
      name: NODE_NAME,
      ip: network.hostIp,
      subnet: network.subnet,
      bridge: network.bridge,
      logFiles: { containerd: containerd.logFile, kubelet: kubelet.logFile },
      loadImage: (source, load) => loadImage(paths, dir, source, load?.name),
      async loadShellImage(image) {
        const archive = join(dir, `image-${Date.now()}-${Math.random().toString(36).slice(2)}.tar`);
        writeShellImage(archive, { ...image, fetch: options.fetch });
        await loadImage(paths, dir, archive, undefined);
        return image.name;
      },
      images: async () =>
        (await ctr(paths, ['images', 'ls', '-q']))
          .split('\n')
          .filter((l) => l && !l.startsWith('sha256:')),
      pids: () => cgroupPids(cgroup),
      stop: () => stop(processes),
    };
  } catch (error) {
    await stop(processes).catch(() => undefined);
    throw error;
  }
}

async function loadImage(
  paths: ContainerdPaths,
  dir: string,
  source: string,
  name: string | undefined,
): Promise<string[]> {
  let archive = source;
  if (!existsSync(source)) {
    // A podman image: save it from podman's storage first.
    archive = join(dir, `podman-${Date.now()}.tar`);
    try {
      await exec('podman', ['save', '--format', 'docker-archive', '-o', archive, source]);
    } catch (error) {
      const e = error as { stderr?: string; message: string };
      throw new Error(
        `loadImage ${source}: not a file, and podman cannot save it: ${(e.stderr ?? e.message).trim()}`,
        { cause: error },
      );
    }
  }
  const names = await importArchive(paths, archive);
  const first = names[0];
  if (!first) throw new Error(`loadImage ${source}: the archive held no named image`);
  if (name && !names.includes(name)) {
    await ctr(paths, ['images', 'tag', '--force', first, name]);
    names.push(name);
  }
  return names;
}
