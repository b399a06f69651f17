// The remote node's Node object, shaped as interLink's virtual kubelet registers its own: its
// labels (kubernetes.io/hostname, type and virtual-node.interlink/type virtual-kubelet, role
// agent), the taint `virtual-node.interlink/no-schedule=true:NoSchedule` that only Pods meant for
// it tolerate, a large capacity, an InternalIP and kubelet port where the apiserver fetches logs;
// kept Ready by a heartbeat (its Lease in kube-node-lease and its Ready condition, every 10 s) so
// that kube-controller-manager's node lifecycle controller never taints or evicts it.
import { ApiError, type Api } from './api.js';
import { now } from './pod-status.js';

export const NO_SCHEDULE_TAINT = 'virtual-node.interlink/no-schedule';
const LEASE_NAMESPACE = 'kube-node-lease';
const HEARTBEAT_MS = 10_000;

export interface NodeSettings {
  name: string;
  /** Where the apiserver reaches its logs server. */
  internalIp: string;
  kubeletPort: number;
  kubeletVersion: string;
  capacity: { cpu: string; memory: string; pods: string };
}

function nodeManifest(s: NodeSettings, since: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: s.name,
      labels: {
        'kubernetes.io/hostname': s.name,
        'kubernetes.io/role': 'agent',
        type: 'virtual-kubelet',
        'virtual-node.interlink/type': 'virtual-kubelet',
        'node.kubernetes.io/exclude-from-external-load-balancers': 'true',
      },
    },
    spec: {
      providerID: `external:///${s.name}`,
      taints: [{ key: NO_SCHEDULE_TAINT, value: 'true', effect: 'NoSchedule' }],
    },
    status: nodeStatus(s, since),
  };
}

/** The status, heartbeat now; `since` is when the conditions took their values (registration). */
function nodeStatus(s: NodeSettings, since: string): Record<string, unknown> {
  const at = now();
  const condition = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: at,
    lastTransitionTime: since,
  });
  return {
    conditions: [
      condition('Ready', 'True', 'KubeletReady', 'the remote node is ready'),
      condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'enough memory'),
      condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'no disk pressure'),
      condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'enough PIDs'),
      condition('NetworkUnavailable', 'False', 'RouteCreated', 'its network is up'),
    ],
    addresses: [
      { type: 'InternalIP', address: s.internalIp },
      { type: 'Hostname', address: s.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: s.kubeletPort } },
    capacity: s.capacity,
    allocatable: s.capacity,
    nodeInfo: {
      kubeletVersion: s.kubeletVersion,
      architecture: 'amd64',
      operatingSystem: 'linux',
      machineID: '',
      systemUUID: '',
      bootID: '',
      kernelVersion: '',
      osImage: 'kfx remote node',
      containerRuntimeVersion: 'kfx-remote://1',
      kubeProxyVersion: '',
    },
  };
}

const microTime = () => new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

async function renewLease(api: Api, s: NodeSettings, nodeUid: string): Promise<void> {
  const path = `/apis/coordination.k8s.io/v1/namespaces/${LEASE_NAMESPACE}/leases`;
  try {
    await api.call(
      'PATCH',
      `${path}/${s.name}`,
      { spec: { renewTime: microTime() } },
      'application/merge-patch+json',
    );
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
    await api.call('POST', path, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: s.name,
        namespace: LEASE_NAMESPACE,
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: s.name, uid: nodeUid }],
      },
      spec: { holderIdentity: s.name, leaseDurationSeconds: 40, renewTime: microTime() },
    });
  }
}

export interface RegisteredNode {
  uid: string;
  /** Stops the heartbeat and deletes the Node and its Lease. */
  stop(): Promise<void>;
}

/** Creates (or takes over) the Node, makes it Ready and keeps it so. */
export async function registerNode(
  api: Api,
  s: NodeSettings,
  onError: (error: unknown) => void,
): Promise<RegisteredNode> {
  const since = now();
  const manifest = nodeManifest(s, since);
  let node: { metadata: { uid: string } };
  try {
    node = await api.call('POST', '/api/v1/nodes', manifest);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 409)) throw error;
    const { metadata, spec } = manifest;
    node = await api.call(
      'PATCH',
      `/api/v1/nodes/${s.name}`,
      { metadata, spec },
      'application/merge-patch+json',
    );
  }
  const uid = node.metadata.uid;
  const beat = async () => {
    await api.call(
      'PATCH',
      `/api/v1/nodes/${s.name}/status`,
      { status: nodeStatus(s, since) },
      'application/merge-patch+json',
    );
    await renewLease(api, s, uid);
  };
  await beat();
  const timer = setInterval(() => {
    beat().catch(onError);
  }, HEARTBEAT_MS);
  timer.unref();
  return {
    uid,
    async stop() {
      clearInterval(timer);
      const leases = `/apis/coordination.k8s.io/v1/namespaces/${LEASE_NAMESPACE}/leases`;
      await api.call('DELETE', `${leases}/${s.name}`).catch(() => undefined);
      await api.call('DELETE', `/api/v1/nodes/${s.name}`).catch(() => undefined);
    },
  };
}
