// A real Kubernetes control plane on 127.0.0.1, the way controller-runtime's envtest starts
// one: etcd and kube-apiserver always; kube-controller-manager, kube-scheduler and kwok (fake
// nodes whose pods "run") when a test needs namespaces deleted, garbage collection or Jobs; and
// a real node (containerd, kubelet and kube-proxy, node/real-node.ts) with the cluster DNS when
// containers must really run. With a node, the apiserver listens on the host's address on the
// node's network instead of 127.0.0.1, and advertises it: the `kubernetes` Service leads there.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, VersionApi, type KubeConfig } from '@kubernetes/client-node';
import type { Progress } from './build.js';
import { binaryCacheDir, type BinaryName } from './binaries.js';
import { fakeNode, kwokConfigYaml } from './kwok.js';
import { writeKubeconfig } from './kubeconfig.js';
import { applyManifests, CRDS, installCrds } from './objects.js';
import { writePki, SERVICE_CIDR } from './pki.js';
import { waitUntilHealthy, type ClientTls } from './health.js';
import { requireMinorBinaries, kubernetesMinor, type KubernetesMinor } from './minors.js';
import { freePort } from './ports.js';
import { startProcess, startReaper, type ManagedProcess } from './processes.js';
import { waitFor } from './wait.js';
import { startClusterDns } from './node/cluster-dns.js';
import { realNodeSupport } from './node/host.js';
import { allocateNetwork, type NodeNetwork } from './node/network.js';
import { startRealNode, type RealNode } from './node/real-node.js';
import { removeNetwork } from './node/teardown.js';

export type OptionalComponent = 'controller-manager' | 'scheduler' | 'kwok' | 'node';

export interface ControlPlaneOptions {
  /**
   * Extra components. Jobs need the first three; garbage collection needs controller-manager.
   * `node` is a real node (it brings controller-manager and scheduler along); where the machine
   * cannot run one, startControlPlane throws NodeUnavailableError: check realNodeSupport() first.
   */
  components?: readonly OptionalComponent[];
  /** Fake nodes when kwok runs. Default 1 (`kwok-node-0`). */
  nodes?: number;
  /** Install the Kubeflow Profile CRD. Default true. */
  profileCrd?: boolean;
  /** Extra kube-apiserver flags, e.g. `--feature-gates=...`. */
  apiServerFlags?: readonly string[];
  /** Extra kwok configuration documents (ClusterLogs, Stages). */
  kwokConfig?: readonly object[];
  /** Where start-up progress goes. Default: nowhere. */
  progress?: Progress;
  /** Seconds to wait for each component. Default 60. */
  startTimeoutSeconds?: number;
  /**
   * The Kubernetes minor of kube-apiserver, controller-manager and scheduler: `newest`,
   * `oldest` or the minor itself. Default: $KFX_KUBERNETES_MINOR, else the newest.
   */
  kubernetesMinor?: KubernetesMinor | 'newest' | 'oldest' | undefined;
}

export interface ControlPlane {
  /** https://127.0.0.1:<port>, or with a real node https://<node.hostIp>:<port>. */
  server: string;
  /** The API server's version as it reports it (`/version`), e.g. `v1.37.1`. */
  kubernetesVersion: string;
  /** Admin (system:masters) credentials, embedded. */
  kubeConfig: KubeConfig;
  kubeconfigPath: string;
  /** PEM of the CA that signed the apiserver's certificate and the client certificates. */
  caCert: string;
  /** The folder holding certificates, data and component logs; removed by stop(). */
  dir: string;
  /** Log file of each running component, by name. */
  logFiles: Record<string, string>;
  /** A kubeconfig (file and object) for another user, e.g. to test RBAC denials. */
  userKubeconfig(
    user: string,
    groups?: readonly string[],
  ): { path: string; kubeConfig: KubeConfig };
  /** Stops and starts kube-apiserver on the same port and data (etcd keeps running). */
  restartApiServer(): Promise<void>;
  /** The real node, with the `node` component. */
  node?: ControlPlaneNode | undefined;
  /** Stops every component, leaves no process behind, removes `dir` (unless KFX_TESTENV_KEEP=1). */
  stop(): Promise<void>;
}

/** The real node. Pods reach the apiserver through the `kubernetes` Service, as in any cluster. */
export type ControlPlaneNode = RealNode;

export class NodeUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`no real node here: ${reason}`);
    this.name = 'NodeUnavailableError';
  }
}

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const components = new Set(options.components ?? []);
  const withNode = components.has('node');
  // The node's kubelet and kube-proxy are of the plane's minor (minors.ts): never newer than
  // the API server, as Kubernetes' version-skew policy requires.
  const minor = kubernetesMinor(options.kubernetesMinor);
  if (withNode) {
    const support = realNodeSupport();
    if (!support.available) throw new NodeUnavailableError(support.reason ?? 'unknown');
    components.add('controller-manager');
    components.add('scheduler');
  }
  const progress = options.progress ?? (() => undefined);
  const timeoutMs = (options.startTimeoutSeconds ?? 60) * 1000;
  const needed: BinaryName[] = ['etcd', 'kube-apiserver'];
  if (components.has('controller-manager')) needed.push('kube-controller-manager');
  if (components.has('scheduler')) needed.push('kube-scheduler');
  if (components.has('kwok')) needed.push('kwok');
  if (withNode) needed.push('kubelet', 'kube-proxy', 'coredns', 'fetch');
  const bin = requireMinorBinaries(needed, minor);

  const dir = mkdtempSync(join(tmpdir(), 'kfx-testenv-'));
  startReaper(dir);
  const running: ManagedProcess[] = [];
  const logFiles: Record<string, string> = {};
  const start = (name: string, binary: string, args: string[], env?: NodeJS.ProcessEnv) => {
    const c = startProcess({
      name,
      command: binary,
      args,
      env,
      logFile: join(dir, `${name}.log`),
      cwd: dir,
      reaperDir: dir,
    });
    running.push(c);
    logFiles[name] = c.logFile;
    return c;
  };
  let network: NodeNetwork | undefined;
  let node: ControlPlaneNode | undefined;
  const stopAll = async () => {
    await node?.stop();
    if (network) removeNetwork(network.hostLink);
    for (const c of [...running].reverse()) await c.stop();
    running.length = 0;
  };

  try {
    if (withNode) network = allocateNetwork();
    const pki = writePki(dir, network ? [network.hostIp] : []);
    const f = pki.files;
    const tls: ClientTls = { ca: pki.ca.cert, cert: pki.admin.cert, key: pki.admin.key };
    const [etcdClient, etcdPeer, apiPort] = await Promise.all([freePort(), freePort(), freePort()]);
    // Pods reach the apiserver where it listens: the host's address on their network (never a
    // public one), which the `kubernetes` Service's endpoints then name.
    const apiIp = network?.hostIp ?? '127.0.0.1';
    const server = `https://${apiIp}:${apiPort}`;

    // etcd: fsync off, a test cluster has nothing to keep.
    progress('starting etcd');
    mkdirSync(join(dir, 'etcd'), { mode: 0o700 });
    const etcd = start('etcd', bin.etcd, [
      `--data-dir=${join(dir, 'etcd')}`,
      `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
      `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-cluster=default=http://127.0.0.1:${etcdPeer}`,
      '--unsafe-no-fsync',
      '--log-level=warn',
    ]);
    await waitUntilHealthy(etcd, `http://127.0.0.1:${etcdClient}/health`, { timeoutMs });

    const apiServerArgs = [
      `--etcd-servers=http://127.0.0.1:${etcdClient}`,
      `--bind-address=${apiIp}`,
      `--advertise-address=${apiIp}`,
      `--secure-port=${apiPort}`,
      `--cert-dir=${join(dir, 'apiserver-certs')}`,
      `--tls-cert-file=${f.servingCert}`,
      `--tls-private-key-file=${f.servingKey}`,
      `--client-ca-file=${f.caCert}`,
      `--service-account-key-file=${f.serviceAccountPub}`,
      `--service-account-signing-key-file=${f.serviceAccountKey}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      '--api-audiences=https://kubernetes.default.svc.cluster.local',
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      '--authorization-mode=RBAC',
      '--allow-privileged=true',
      // As envtest: no token controller runs for service accounts that tests never create.
      // Pods on a real node do get their service account's token.
      ...(withNode ? [] : ['--disable-admission-plugins=ServiceAccount']),
      // The apiserver runs beside the node, not on it: it calls webhooks behind Services at their
      // endpoints (the pods' addresses), not through kube-proxy's cluster IPs.
      ...(withNode ? ['--enable-aggregator-routing=true'] : []),
      // kwok serves container logs as the kubelet would; the apiserver reaches it as admin.
      `--kubelet-client-certificate=${f.adminCert}`,
      `--kubelet-client-key=${f.adminKey}`,
      '--kubelet-preferred-address-types=InternalIP',
      '--profiling=false',
      // 127.0.0.1 cannot back the kubernetes Service's endpoints: without a node no pod needs them.
      ...(withNode ? [] : ['--endpoint-reconciler-type=none']),
      ...(options.apiServerFlags ?? []),
    ];
    const startApiServer = async () => {
      progress('starting kube-apiserver');
      const apiserver = start('kube-apiserver', bin['kube-apiserver'], apiServerArgs);
      await waitUntilHealthy(apiserver, `${server}/readyz`, { ...tls, timeoutMs });
      return apiserver;
    };
    let apiserver = await startApiServer();

    const kubeconfigPath = join(dir, 'kubeconfig');
    const kubeConfig = writeKubeconfig(kubeconfigPath, {
      server,
      caCert: pki.ca.cert,
      user: 'kfx-testenv-admin',
      clientCert: pki.admin.cert,
      clientKey: pki.admin.key,
    });
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const { gitVersion: kubernetesVersion } = await kubeConfig.makeApiClient(VersionApi).getCode();
    await waitFor(
      async () => {
        const ns = await core.readNamespace({ name: 'default' });
        return { done: true, value: ns };
      },
      { description: 'the default namespace', timeoutMs },
    );

    const crds = [
      ...(options.profileCrd === false ? [] : [CRDS.kubeflowProfile]),
      ...(components.has('kwok') ? [CRDS.kwokLogs] : []),
    ];
    if (crds.length > 0) await installCrds(kubeconfigPath, crds);

    if (components.has('controller-manager')) {
      progress('starting kube-controller-manager');
      const kcmPort = await freePort();
      const kcm = start('kube-controller-manager', bin['kube-controller-manager'], [
        `--kubeconfig=${kubeconfigPath}`,
        `--authentication-kubeconfig=${kubeconfigPath}`,
        `--authorization-kubeconfig=${kubeconfigPath}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${kcmPort}`,
        // Serve with the apiserver's certificate (SAN 127.0.0.1), so health checks can verify it.
        `--tls-cert-file=${f.servingCert}`,
        `--tls-private-key-file=${f.servingKey}`,
        '--leader-elect=false',
        `--service-account-private-key-file=${f.serviceAccountKey}`,
        `--root-ca-file=${f.caCert}`,
        `--cluster-signing-cert-file=${f.caCert}`,
        `--cluster-signing-key-file=${f.caKey}`,
        '--use-service-account-credentials=false',
        `--service-cluster-ip-range=${SERVICE_CIDR}`,
        '--controllers=*,-nodeipam',
      ]);
      await waitUntilHealthy(kcm, `https://127.0.0.1:${kcmPort}/healthz`, { ...tls, timeoutMs });
    }

    if (components.has('scheduler')) {
      progress('starting kube-scheduler');
      const schedPort = await freePort();
      const scheduler = start('kube-scheduler', bin['kube-scheduler'], [
        `--kubeconfig=${kubeconfigPath}`,
        `--authentication-kubeconfig=${kubeconfigPath}`,
        `--authorization-kubeconfig=${kubeconfigPath}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${schedPort}`,
        `--tls-cert-file=${f.servingCert}`,
        `--tls-private-key-file=${f.servingKey}`,
        '--leader-elect=false',
      ]);
      await waitUntilHealthy(scheduler, `https://127.0.0.1:${schedPort}/healthz`, {
        ...tls,
        timeoutMs,
      });
    }

    if (components.has('kwok')) {
      progress('starting kwok');
      const kwokPort = await freePort();
      const kwokConfig = join(dir, 'kwok.yaml');
      writeFileSync(
        kwokConfig,
        kwokConfigYaml({ serverPort: kwokPort, extra: options.kwokConfig ?? [] }),
      );
      const kwok = start('kwok', bin.kwok, [
        `--kubeconfig=${kubeconfigPath}`,
        `--config=${kwokConfig}`,
      ]);
      await waitUntilHealthy(kwok, `http://127.0.0.1:${kwokPort}/healthz`, { timeoutMs });
      const nodes = Array.from({ length: options.nodes ?? 1 }, (_, i) =>
        fakeNode(`kwok-node-${i}`),
      );
      await applyManifests(kubeconfigPath, nodes);
      await waitFor(
        async () => {
          const list = await core.listNode({ labelSelector: 'type=kwok' });
          const ready = list.items.filter((n) =>
            n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
          );
          return ready.length === nodes.length
            ? { done: true, value: undefined }
            : { done: false, saw: `${ready.length}/${nodes.length} kwok nodes Ready` };
        },
        { description: 'kwok nodes to be Ready', timeoutMs },
      );
    }

    if (network) {
      progress('starting the cluster DNS (CoreDNS)');
      await startClusterDns({
        coredns: bin.coredns,
        dir,
        hostIp: network.hostIp,
        kubeconfigPath,
        start: (name, command, args) => start(name, command, args),
        timeoutMs,
      });
      node = await startRealNode({
        dir,
        network,
        ca: pki.ca,
        caFile: f.caCert,
        server,
        adminKubeconfig: kubeconfigPath,
        kubeConfig,
        kubelet: bin.kubelet,
        kubeProxy: bin['kube-proxy'],
        fetch: bin.fetch,
        cacheDir: binaryCacheDir(),
        start,
        timeoutMs,
        progress,
      });
      // Pods are admitted only once their service account exists (the ServiceAccount plugin).
      await waitFor(
        async () => {
          await core.readNamespacedServiceAccount({ name: 'default', namespace: 'default' });
          return { done: true, value: undefined };
        },
        { description: 'the default service account', timeoutMs },
      );
    }

    let stopped = false;
    return {
      server,
      kubernetesVersion,
      kubeConfig,
      kubeconfigPath,
      caCert: pki.ca.cert,
      dir,
      logFiles,
      node,
      userKubeconfig(user, groups = []) {
        const cred = pki.ca.issue({ commonName: user, organizations: groups, usage: 'client' });
        const path = join(dir, `kubeconfig-${user.replace(/[^A-Za-z0-9_.-]/g, '_')}`);
        const kc = writeKubeconfig(path, {
          server,
          caCert: pki.ca.cert,
          user,
          clientCert: cred.cert,
          clientKey: cred.key,
        });
        return { path, kubeConfig: kc };
      },
      async restartApiServer() {
        await apiserver.stop();
        running.splice(running.indexOf(apiserver), 1);
        apiserver = await startApiServer();
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        await stopAll();
        if (process.env.KFX_TESTENV_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await stopAll();
    if (process.env.KFX_TESTENV_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
