// The webhook's view of the cluster's network, kept current: a Node cache (reduced to addresses,
// host names and pod ranges), the ServiceCIDR objects where that API is served (Kubernetes
// 1.33+; where it is not, why, naming the server's version), and the `kubernetes` Service's IPs
// (read once: they never change). Read-only access, list/watch on nodes and servicecidrs, get on
// services/kubernetes. `snapshot()` is rebuilt only after a change that matters to NO_PROXY (not
// on node heartbeats).
import type { V1Node } from '@kubernetes/client-node';
import type { Plain } from '@kfx/admission-core';
import {
  missingApiReason,
  readServerVersion,
  resources,
  servesApi,
  type KubeClient,
  type KubeObject,
  type ResourceRef,
} from '@kfx/kube-runtime/client';
import {
  createInformer,
  informersReady,
  metadataSkeleton,
  type Informer,
} from '@kfx/kube-runtime/informer';
import { messageOf, type Logger } from '@kfx/kube-runtime/serving';
import {
  serviceCidrsOf,
  serviceIpsOf,
  summarizeNode,
  type DiscoveredNetwork,
  type DiscoveredNode,
} from './network.js';

const SERVICE_CIDRS: ResourceRef = {
  group: 'networking.k8s.io',
  version: 'v1',
  resource: 'servicecidrs',
  kind: 'ServiceCIDR',
  namespaced: false,
};

type ServiceCidr = KubeObject & { spec?: { cidrs?: string[] } };

/** Whether ServiceCIDR objects exist to read; a failure to ask counts as no. */
const serviceCidrsServed = (client: KubeClient): Promise<boolean> =>
  servesApi(client, 'networking.k8s.io/v1', 'ServiceCIDR').catch(() => false);

/** Why the service range cannot be discovered on a server without ServiceCIDR objects. */
async function whyNoServiceCidrs(client: KubeClient): Promise<string> {
  const version = await readServerVersion(client).catch(() => undefined);
  return missingApiReason('ServiceCIDR (networking.k8s.io/v1)', 33, version);
}

async function kubernetesServiceIps(client: KubeClient, signal?: AbortSignal) {
  const service = await client.get<KubeObject>(resources.services, 'kubernetes', {
    namespace: 'default',
    ...(signal ? { signal } : {}),
  });
  return serviceIpsOf(service as Parameters<typeof serviceIpsOf>[0]);
}

/**
 * One reading of the cluster's network (`kfx preview --discover`): what can be read is used,
 * and `problems` says what could not be and why.
 */
export async function discoverNetwork(client: KubeClient): Promise<DiscoveredNetwork> {
  const problems: string[] = [];
  const attempt = <T>(what: string, read: () => Promise<T>) =>
    read().catch((error: unknown) => {
      problems.push(`${what} not read: ${messageOf(error)}`);
      return undefined;
    });
  const [nodes, [serviceCidrs, serviceCidrsMissing], apiServerServiceIps] = await Promise.all([
    attempt('Nodes', async () =>
      (await client.list<Plain<V1Node>>(resources.nodes)).items.map(summarizeNode),
    ),
    serviceCidrsServed(client).then(async (served) =>
      served
        ? ([
            await attempt('ServiceCIDRs', async () =>
              serviceCidrsOf((await client.list<ServiceCidr>(SERVICE_CIDRS)).items),
            ),
            undefined,
          ] as const)
        : ([undefined, await whyNoServiceCidrs(client)] as const),
    ),
    attempt('Service default/kubernetes', () => kubernetesServiceIps(client)),
  ]);
  return { nodes, serviceCidrs, serviceCidrsMissing, apiServerServiceIps, problems };
}

export class ClusterDiscovery {
  readonly #client: KubeClient;
  readonly #log: Logger;
  readonly #nodes: Informer<KubeObject>;
  #serviceCidrs: Informer<ServiceCidr> | undefined;
  #serviceCidrsMissing: string | undefined;
  #apiServerServiceIps: string[] | undefined;
  /** Node key → its summary and that summary as text, to tell a change from a heartbeat. */
  readonly #summaries = new Map<string, { node: DiscoveredNode; text: string }>();
  #snapshot: DiscoveredNetwork | undefined;
  #version = 0;
  #starting: Promise<void> | undefined;

  constructor(client: KubeClient, logger: Logger) {
    this.#client = client;
    this.#log = logger;
    const skeleton = metadataSkeleton();
    const summaries = new WeakMap<object, DiscoveredNode>();
    this.#nodes = createInformer<KubeObject>(client, resources.nodes, {
      name: 'nodes',
      logger,
      resyncMs: 0,
      // Only the identity is cached; the summary is made from the whole object first.
      transform: (node) => {
        const kept = skeleton(node);
        summaries.set(kept, summarizeNode(node as Plain<V1Node>));
        return kept;
      },
    });
    const store = (node: KubeObject) => {
      const summary = summaries.get(node);
      if (!summary) return;
      const text = JSON.stringify(summary);
      const key = node.metadata?.name ?? '';
      if (this.#summaries.get(key)?.text === text) return;
      this.#summaries.set(key, { node: summary, text });
      this.#changed();
    };
    this.#nodes.on('add', store);
    this.#nodes.on('update', store);
    this.#nodes.on('delete', (node) => {
      if (this.#summaries.delete(node.metadata?.name ?? '')) this.#changed();
    });
  }

  #changed() {
    this.#snapshot = undefined;
    this.#version += 1;
  }

  /** Increases with every change of the snapshot. */
  get version(): number {
    return this.#version;
  }

  /** The network as last seen; parts not read (yet) are undefined. */
  snapshot(): DiscoveredNetwork {
    if (this.#snapshot) return this.#snapshot;
    const synced = this.#nodes.hasSynced();
    const cidrs = this.#serviceCidrs;
    this.#snapshot = {
      nodes: synced ? [...this.#summaries.values()].map(({ node }) => node) : undefined,
      serviceCidrs: cidrs?.hasSynced() ? serviceCidrsOf(cidrs.store.list()) : undefined,
      serviceCidrsMissing: this.#serviceCidrsMissing,
      apiServerServiceIps: this.#apiServerServiceIps,
    };
    return this.#snapshot;
  }

  /**
   * Starts the caches and reads the `kubernetes` Service; resolves once the caches synced. A
   * second call (the admission server starts its webhooks too) waits for the first.
   */
  start(): Promise<void> {
    return (this.#starting ??= this.#start());
  }

  async #start(): Promise<void> {
    this.#nodes.start();
    if (await serviceCidrsServed(this.#client)) {
      const informer = createInformer<ServiceCidr>(this.#client, SERVICE_CIDRS, {
        name: 'servicecidrs',
        logger: this.#log,
        resyncMs: 0,
      });
      const changed = () => {
        this.#changed();
      };
      informer.on('add', changed);
      informer.on('update', (now, old) => {
        if (now !== old) changed(); // a resync re-emits the same object
      });
      informer.on('delete', changed);
      this.#serviceCidrs = informer;
      informer.start();
    } else {
      this.#serviceCidrsMissing = await whyNoServiceCidrs(this.#client);
      this.#log.info(`service range not discovered: ${this.#serviceCidrsMissing}`);
    }
    try {
      this.#apiServerServiceIps = await kubernetesServiceIps(this.#client);
      this.#changed();
    } catch (error) {
      this.#log.warn(
        { err: error },
        'cannot read Service default/kubernetes: its IP not discovered',
      );
    }
    await Promise.all([this.#nodes.waitForSync(), this.#serviceCidrs?.waitForSync()]);
    this.#changed();
  }

  readiness(): { ok: boolean; reasons: string[] } {
    return informersReady([this.#nodes, this.#serviceCidrs]);
  }

  async stop(): Promise<void> {
    await this.#starting?.catch(() => undefined);
    await Promise.all([this.#nodes.stop(), this.#serviceCidrs?.stop()]);
    this.#starting = undefined;
    this.#serviceCidrs = undefined;
  }
}
