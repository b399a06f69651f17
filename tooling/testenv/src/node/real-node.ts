// A real node for the test control plane: containerd, runc and the CNI bridge plugin from
// Debian, a kubelet and kube-proxy built from the Kubernetes module, all inside a private mount
// namespace (so the kubelet's fixed paths and sysctls touch nothing on the host) and a network
// namespace of their own (so kube-proxy's rules are the node's alone), in cgroup folders and on a
// subnet of their own (so two control planes can each run one). Pods really run: their images are
// imported into containerd, never pulled. stop() kills everything in the node's cgroups and
// deletes its host link; an exit hook and the detached reaper do the same if the test dies first.
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { CertificateAuthority } from '@kfx/dev-certs';
import { waitUntilHealthy, waitWhileRunning } from '../health.js';
import { writeKubeconfig } from '../kubeconfig.js';
import { applyManifests } from '../objects.js';
import type { ManagedProcess } from '../processes.js';
import { waitFor } from '../wait.js';
import { createCgroup, joinDaemonsScript } from './cgroups.js';
import { CLUSTER_DNS_IP, CLUSTER_DOMAIN } from './cluster-dns.js';
import {
  containerdConfig,
  ctr,
  importArchive,
  noPullEnv,
  registryHostsConfig,
} from './containerd.js';
import { pauseImageArchive, writeShellImage, type ShellImageOptions } from './images.js';
import { kubeletConfig } from './kubelet.js';
import { KUBE_PROXY_USER, kubeProxyBinding, kubeProxyConfig } from './kube-proxy.js';
import { nodeContainerd, nodeImages, type NodeImages } from './load-image.js';
import { startNodeNamespace } from './namespace.js';
import { cniConfig, type NodeNetwork } from './network.js';
import { cgroupPids, teardownNode, type NodeTraces } from './teardown.js';

const execAsync = promisify(execFile);
const NODE_NAME = 'kfx-node';
/** Written into the control plane's folder for the reaper. */
const NODE_TRACES_FILE = 'node.json';
const KUBE_PROXY_HEALTHZ_PORT = 10256;

export interface RealNode extends NodeImages {
  /** The Node's name in the API: `kfx-node`. */
  name: string;
  /** The node's address (its InternalIP): the kubelet's and kube-proxy's, NodePorts'. */
  ip: string;
  /**
   * The host's address on the node's network: pods reach this machine there (the apiserver,
   * cluster DNS, squid, test origins listen on it).
   */
  hostIp: string;
  /** The pods' subnet, e.g. `10.233.7.0/24`. */
  subnet: string;
  /** The host's end of the node's network (`kfxbrN`). */
  hostLink: string;
  /** kubelet, kube-proxy and containerd logs. */
  logFiles: Record<string, string>;
  /**
   * Writes a busybox image (sh and friends, plus `/usr/bin/fetch`, a static HTTP client that
   * honours HTTP(S)_PROXY and NO_PROXY as Go, Python and curl do) with the given extra files and
   * loads it; resolves with its name.
   */
  loadShellImage(options: Omit<ShellImageOptions, 'fetch'>): Promise<string>;
  /**
   * Resolves once kube-proxy has written the rules that send the Service's cluster IP to its
   * endpoints (it does so a moment after the Service and its endpoints exist, as on any
   * cluster; a pod that connects before gets `network is unreachable`).
   */
  serviceRouted(namespace: string, name: string): Promise<void>;
  /**
   * Lets the node pull from a registry on this machine over plain HTTP: `hostPort` is
   * `<hostIp>:<port>` where it listens (images named `<hostIp>:<port>/…`). No other pull works.
   */
  trustRegistry(hostPort: string): void;
  /** Every process of the node (its daemons, shims and containers), from its cgroups. */
  pids(): number[];
  /**
   * The pid of the process holding the node's namespaces: `nsenter -t <it> -n` runs a command in
   * the node's network (where its bridge, its address and kube-proxy's rules are).
   */
  namespacePid: number;
  /**
   * Runs `hook` when the node stops, before anything of it goes: for what lives on the node's
   * network (a remote node joined to it), so that it never outlives the node.
   */
  onStop(hook: () => Promise<void>): void;
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
  kubeProxy: string;
  /** The static HTTP client put into shell images. */
  fetch: string;
  /** The binary cache, where the pause image is kept. */
  cacheDir: string;
  /** Starts a process under the control plane's reaper and log files. */
  start(name: string, command: string, args: string[], env?: NodeJS.ProcessEnv): ManagedProcess;
  timeoutMs: number;
  progress: (line: string) => void;
}

/** A kubeconfig of the node's own for one of its daemons, with a certificate from the CA. */
function daemonKubeconfig(
  options: RealNodeOptions,
  file: string,
  user: string,
  groups: string[] = [],
): string {
  const cred = options.ca.issue({ commonName: user, organizations: groups, usage: 'client' });
  writeKubeconfig(file, {
    server: options.server,
    caCert: options.ca.cert,
    user,
    clientCert: cred.cert,
    clientKey: cred.key,
  });
  return file;
}

export async function startRealNode(options: RealNodeOptions): Promise<RealNode> {
  const { network, progress, timeoutMs } = options;
  const dir = join(options.dir, 'node');
  const cgroup = `kfx-node-${network.hostLink.replace(/^kfxbr/, '')}`;
  const traces: NodeTraces = { cgroup, link: network.hostLink };
  writeFileSync(join(options.dir, NODE_TRACES_FILE), JSON.stringify(traces));
  const onExit = () => teardownNode(traces);
  process.on('exit', onExit);
  let stopped = false;
  const hooks: (() => Promise<void>)[] = [];
  const stop = async (processes: ManagedProcess[]) => {
    if (stopped) return;
    stopped = true;
    for (const hook of hooks.splice(0).reverse()) await hook().catch(() => undefined);
    process.off('exit', onExit);
    const left = teardownNode(traces);
    await Promise.all(processes.map((p) => p.exited));
    if (left.length > 0) throw new Error(`the node left cgroups behind: ${left.join(', ')}`);
  };

  const processes: ManagedProcess[] = [];
  try {
    createCgroup(cgroup);
    const paths = nodeContainerd(options.dir);
    for (const sub of ['kubelet', 'kube-proxy', join('cni', 'ipam')]) {
      mkdirSync(join(dir, sub), { recursive: true });
    }
    mkdirSync(paths.cniConfDir, { recursive: true });
    writeFileSync(
      join(paths.cniConfDir, '10-kfx.conflist'),
      cniConfig(network, join(dir, 'cni', 'ipam')),
    );
    writeFileSync(join(dir, 'containerd.toml'), containerdConfig(paths));

    progress('starting the node: namespaces and network');
    const namespace = await startNodeNamespace({
      dir,
      network,
      joinCgroup: joinDaemonsScript(cgroup),
      start: (name, command, args) => options.start(name, command, args),
      timeoutMs,
    });
    processes.push(namespace.holder);

    progress('starting the node: containerd');
    const containerd = options.start(
      'containerd',
      'sh',
      ['-c', namespace.inside(`containerd --config ${join(dir, 'containerd.toml')}`)],
      { ...process.env, ...noPullEnv(network.hostIp) },
    );
    processes.push(containerd);
    await waitWhileRunning(
      containerd,
      async () => {
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
    const serving = options.ca.issue({ commonName: NODE_NAME, ipAddresses: [network.nodeIp] });
    const kubeletDir = join(dir, 'kubelet');
    writeFileSync(join(kubeletDir, 'serving.crt'), serving.cert);
    writeFileSync(join(kubeletDir, 'serving.key'), serving.key, { mode: 0o600 });
    const kubeletKubeconfig = daemonKubeconfig(
      options,
      join(kubeletDir, 'kubeconfig'),
      `system:node:${NODE_NAME}`,
      ['system:nodes'],
    );
    writeFileSync(
      join(kubeletDir, 'config.yaml'),
      kubeletConfig({
        cgroupRoot: `/${cgroup}`,
        containerdSocket: paths.socket,
        address: network.nodeIp,
        port: 10250,
        healthzPort: 0,
        clientCaFile: options.caFile,
        tlsCertFile: join(kubeletDir, 'serving.crt'),
        tlsPrivateKeyFile: join(kubeletDir, 'serving.key'),
        clusterDns: CLUSTER_DNS_IP,
        clusterDomain: CLUSTER_DOMAIN,
      }),
    );
    // The test apiserver authorizes by RBAC alone: nodes get the system:node role, kube-proxy
    // the system:node-proxier one, as a cluster's installer grants them.
    await applyManifests(options.adminKubeconfig, [
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'kfx-testenv:nodes' },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'system:node',
        },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:nodes' }],
      },
      kubeProxyBinding,
    ] as never);
    const kubelet = options.start('kubelet', 'sh', [
      '-c',
      namespace.inside(
        [
          options.kubelet,
          `--config=${join(kubeletDir, 'config.yaml')}`,
          `--kubeconfig=${kubeletKubeconfig}`,
          `--node-ip=${network.nodeIp}`,
          `--hostname-override=${NODE_NAME}`,
          '--root-dir=/var/lib/kubelet',
          '--cert-dir=/var/lib/kubelet/pki',
        ].join(' '),
      ),
    ]);
    processes.push(kubelet);
    const core = options.kubeConfig.makeApiClient(CoreV1Api);
    await waitWhileRunning(
      kubelet,
      async () => {
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

    progress('starting the node: kube-proxy');
    const proxyDir = join(dir, 'kube-proxy');
    writeFileSync(
      join(proxyDir, 'config.yaml'),
      kubeProxyConfig({
        kubeconfig: daemonKubeconfig(options, join(proxyDir, 'kubeconfig'), KUBE_PROXY_USER),
        nodeName: NODE_NAME,
        nodeIp: network.nodeIp,
        podSubnet: network.subnet,
        healthzPort: KUBE_PROXY_HEALTHZ_PORT,
      }),
    );
    const kubeProxy = options.start('kube-proxy', 'sh', [
      '-c',
      namespace.inside(`${options.kubeProxy} --config=${join(proxyDir, 'config.yaml')}`),
    ]);
    processes.push(kubeProxy);
    // Healthy once it has written the rules of the Services that exist (the API's, the DNS's).
    await waitUntilHealthy(
      kubeProxy,
      `http://${network.nodeIp}:${KUBE_PROXY_HEALTHZ_PORT}/healthz`,
      { timeoutMs },
    );

    const images = nodeImages(paths);
    return {
      name: NODE_NAME,
      ip: network.nodeIp,
      hostIp: network.hostIp,
      subnet: network.subnet,
      hostLink: network.hostLink,
      logFiles: {
        containerd: containerd.logFile,
        kubelet: kubelet.logFile,
        'kube-proxy': kubeProxy.logFile,
      },
      ...images,
      async loadShellImage(image) {
        const archive = join(dir, `image-${Date.now()}-${Math.random().toString(36).slice(2)}.tar`);
        try {
          writeShellImage(archive, { ...image, fetch: options.fetch });
          await images.loadImage(archive);
        } finally {
          rmSync(archive, { force: true });
        }
        return image.name;
      },
      async serviceRouted(serviceNamespace, name) {
        // kube-proxy's nat rule for a cluster IP: `--comment "<ns>/<name>[:<port>] cluster IP"`,
        // jumping to the Service's chain only while it has endpoints.
        const rule = new RegExp(
          `--comment "?${serviceNamespace}/${name}(:[^ "]*)? cluster IP"? .*-j KUBE-SVC-`,
        );
        await waitFor(
          async () => {
            const { stdout } = await execAsync('sh', [
              '-c',
              namespace.inside('iptables-save -t nat'),
            ]);
            return stdout.split('\n').some((line) => rule.test(line))
              ? { done: true as const, value: undefined }
              : { done: false as const, saw: 'no rule for its cluster IP yet' };
          },
          { description: `kube-proxy to route Service ${serviceNamespace}/${name}`, timeoutMs },
        );
      },
      trustRegistry(hostPort) {
        const hostDir = join(paths.registryHostsDir, hostPort);
        mkdirSync(hostDir, { recursive: true });
        writeFileSync(join(hostDir, 'hosts.toml'), registryHostsConfig(hostPort));
      },
      pids: () => cgroupPids(cgroup),
      namespacePid: namespace.holder.child.pid ?? 0,
      onStop: (hook) => hooks.push(hook),
      stop: () => stop(processes),
    };
  } catch (error) {
    await stop(processes).catch(() => undefined);
    throw error;
  }
}
