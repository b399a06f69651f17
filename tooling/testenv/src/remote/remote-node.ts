// A remote node for the test bed, behaving as interLink's virtual kubelet does where it matters to
// kfx: a Node that Pods reach by interLink's nodeSelector and toleration; their containers really
// run on this machine, in a network namespace whose only way into the cluster is the configured
// API address (a NodePort on the real node, where the exposer listens), like a batch partition
// behind a firewall; their service-account files made as interLink makes them (a Pod-bound
// 100-year token, the configured CA), status and logs reported back. It needs a control plane
// with the real node (its network is joined to the node's) and lives no longer than that node;
// stop(), an exit hook and the plane's reaper remove every process, link and file it made.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { requireBinaries } from '../binaries.js';
import type { ControlPlane } from '../control-plane.js';
import { writeShellImage, type ShellImageOptions } from '../node/images.js';
import { createCgroup, joinDaemonsScript } from '../node/cgroups.js';
import { cgroupPids, teardownNode, type NodeTraces } from '../node/teardown.js';
import { apiClient } from './api.js';
import { parseCriLog, renderLog } from './cri-log.js';
import type { Endpoint } from './firewall.js';
import { imageStore } from './images.js';
import { LogFollowers, startLogsServer } from './logs-server.js';
import { startRemoteNetwork } from './network.js';
import { registerNode } from './node-object.js';
import { remoteNodeSettings, type RemoteNodeOptions } from './options.js';
import type { IssuedToken } from './pod-files.js';
import type { PodRuntime } from './pod-runner.js';
import { startPodSync, type PodSync } from './pod-sync.js';

export interface RemoteNode {
  /** The Node's name (`interlink-node` unless named). */
  name: string;
  /** The remote network's address: every Pod of the node has it (status.podIP). */
  address: string;
  /** The /30 that joins the remote network to the real node's. */
  subnet: string;
  /** What its Pods may connect to (TCP), nothing else. */
  allowed: readonly Endpoint[];
  /** Its structured log (pod starts, exits, problems). */
  logFile: string;
  /** Unpacks an image archive (OCI layout or docker archive); resolves with its names. */
  loadImage(archive: string): Promise<string[]>;
  /** A busybox image with `/usr/bin/fetch` (and what `entries` add), loaded; resolves with its name. */
  loadShellImage(options: Omit<ShellImageOptions, 'fetch'>): Promise<string>;
  /** A container's log as `kubectl logs` prints it (default: the Pod's first container). */
  podLogs(namespace: string, pod: string, container?: string): string;
  /** The processes of a Pod running here. */
  podPids(namespace: string, pod: string): number[];
  /** The tokens it requested for its Pods, with the expiry the apiserver gave each. */
  issuedTokens(): IssuedToken[];
  /** Every process it runs (its network's holder, its containers), from its cgroup. */
  pids(): number[];
  stop(): Promise<void>;
}

export type { RemoteNodeOptions };

export async function startRemoteNode(
  env: ControlPlane,
  options: RemoteNodeOptions,
): Promise<RemoteNode> {
  const settings = remoteNodeSettings(options);
  const node = env.node;
  if (!node)
    throw new Error("startRemoteNode: the control plane has no real node (components: ['node'])");
  const { name } = settings;
  const timeoutMs = settings.startTimeoutSeconds * 1000;
  const tracesFile = join(env.dir, `remote-node-${name}.json`);
  if (existsSync(tracesFile)) {
    throw new Error(
      `startRemoteNode: a remote node named ${name} already runs on this control plane`,
    );
  }
  const dir = join(env.dir, `kfx-remote-${name}`);
  mkdirSync(dir, { recursive: true });
  const logFile = join(dir, 'remote-node.log');
  const log = pino({ base: { node: name } }, pino.destination({ dest: logFile, sync: true }));
  const cgroup = `kfx-remote-${node.hostLink.replace(/^kfxbr/, '')}-${name}`;
  const traces: NodeTraces = { cgroup };
  writeFileSync(tracesFile, JSON.stringify(traces));
  const onExit = () => teardownNode(traces);
  process.on('exit', onExit);

  const cleanups: (() => Promise<void>)[] = [];
  const issued: IssuedToken[] = [];
  let pods: PodSync | undefined;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await pods?.stop();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
    const left = teardownNode(traces);
    process.off('exit', onExit);
    rmSync(tracesFile, { force: true });
    rmSync(dir, { recursive: true, force: true });
    if (left.length > 0) throw new Error(`the remote node left cgroups behind: ${left.join(', ')}`);
  };

  try {
    createCgroup(cgroup);
    const api = await apiClient(env.kubeConfig);
    const network = await startRemoteNetwork({
      nodePid: node.namespacePid,
      nodeIp: node.ip,
      allowed: settings.allowed,
      joinCgroup: joinDaemonsScript(cgroup),
      timeoutMs,
    });
    cleanups.push(() => network.stop());
    const images = imageStore(join(dir, 'images'));
    const followers = new LogFollowers();
    const logs = await startLogsServer({
      address: node.hostIp,
      clientCa: env.caCert,
      find: (namespace, pod, container) => pods?.find(namespace, pod)?.log(container),
      followers,
    });
    cleanups.push(() => logs.close());
    const runtime: PodRuntime = {
      api,
      dir: join(dir, 'pods'),
      images,
      apiAddress: { host: settings.kubernetesApiAddr, port: settings.kubernetesApiPort },
      caCert: settings.kubernetesApiCaCrt,
      netnsPid: network.pid,
      podIp: network.address,
      cgroup,
      followers,
      issued: (token: IssuedToken) => {
        issued.push(token);
        log.info({ ...token, token: '(not logged)' }, 'token issued');
      },
      log,
    };

    const registered = await registerNode(
      api,
      {
        name,
        internalIp: node.hostIp,
        kubeletPort: logs.port,
        kubeletVersion: env.kubernetesVersion,
        capacity: settings.capacity,
      },
      (error) => {
        log.warn({ err: error }, 'heartbeat failed');
      },
    );
    cleanups.push(() => registered.stop());
    pods = startPodSync({ api, nodeName: name, runtime, log });
    const following = pods;
    node.onStop(stop);
    log.info({ address: network.address, allowed: settings.allowed }, 'remote node started');

    return {
      name,
      address: network.address,
      subnet: network.subnet,
      allowed: settings.allowed,
      logFile,
      loadImage: (archive) => images.load(archive),
      async loadShellImage(image) {
        const archive = join(dir, `image-${Date.now()}-${Math.random().toString(36).slice(2)}.tar`);
        try {
          writeShellImage(archive, { ...image, fetch: requireBinaries(['fetch']).fetch });
          await images.load(archive);
        } finally {
          rmSync(archive, { force: true });
        }
        return image.name;
      },
      podLogs(namespace, pod, container) {
        const found = following.find(namespace, pod)?.log(container);
        if (!found)
          throw new Error(
            `no container ${container ?? '(first)'} of Pod ${namespace}/${pod} on ${name}`,
          );
        return renderLog(parseCriLog(readFileSync(found.file, 'utf8')));
      },
      podPids: (namespace, pod) => following.find(namespace, pod)?.pids() ?? [],
      issuedTokens: () => [...issued],
      pids: () => cgroupPids(cgroup),
      stop,
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
