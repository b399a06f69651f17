// A Service whose backend is a server on this host (squid, a test origin, the cluster DNS): a
// Service without a selector and an EndpointSlice naming the host's address on the node's network,
// the way a cluster names a backend that runs outside it. Pods reach it as they reach any Service,
// by name through the cluster DNS and by cluster IP through kube-proxy, and the server sees the
// pod's own address.
import type { KubernetesObject } from '@kubernetes/client-node';
import { applyManifests, type Cluster } from '../objects.js';

export interface HostServicePort {
  /** Required when there are several. */
  name?: string;
  /** The Service's port. */
  port: number;
  /** Where the server listens on the host. Default: `port`. */
  targetPort?: number;
  protocol?: 'TCP' | 'UDP';
}

export interface HostService {
  namespace: string;
  name: string;
  /** The host's address the server listens on: the node's `hostIp`. */
  ip: string;
  ports: readonly HostServicePort[];
  /** A fixed cluster IP (the cluster DNS has one); default: allocated. */
  clusterIP?: string;
}

/** The manifests: the Service, then its EndpointSlice. */
export function hostServiceObjects(service: HostService): KubernetesObject[] {
  const { namespace, name } = service;
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace },
      spec: {
        ...(service.clusterIP ? { clusterIP: service.clusterIP } : {}),
        ports: service.ports.map((p) => ({
          ...(p.name ? { name: p.name } : {}),
          port: p.port,
          targetPort: p.targetPort ?? p.port,
          protocol: p.protocol ?? 'TCP',
        })),
      },
    } as KubernetesObject,
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: `${name}-host`,
        namespace,
        labels: {
          'kubernetes.io/service-name': name,
          'endpointslice.kubernetes.io/managed-by': 'testenv.kfx.dev',
        },
      },
      addressType: 'IPv4',
      endpoints: [{ addresses: [service.ip], conditions: { ready: true } }],
      ports: service.ports.map((p) => ({
        ...(p.name ? { name: p.name } : {}),
        port: p.targetPort ?? p.port,
        protocol: p.protocol ?? 'TCP',
      })),
    } as KubernetesObject,
  ];
}

/** Creates (or updates) the Service and its EndpointSlice; the namespace must exist. */
export async function applyHostService(cluster: Cluster, service: HostService): Promise<void> {
  await applyManifests(cluster, hostServiceObjects(service));
}
