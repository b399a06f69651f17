// What the injector learns about the cluster's network from the API, reduced to what NO_PROXY
// needs: the service ranges (ServiceCIDR objects, Kubernetes 1.33+), the `kubernetes` Service's
// IPs, and per Node its addresses, host names and pod ranges. Pure: the webhook's caches and the
// one-shot discovery of `kfx preview --discover` both produce it.
import type { V1Node } from '@kubernetes/client-node';
import type { Plain } from '@kfx/admission-core';
import { isIpAddress, parseCidr } from '../addresses.js';

export interface DiscoveredNode {
  name: string;
  /** InternalIP and ExternalIP addresses. */
  addresses: string[];
  /** The Node's name and its Hostname, InternalDNS and ExternalDNS addresses. */
  hostnames: string[];
  /** `spec.podCIDRs` (or `spec.podCIDR`). */
  podCidrs: string[];
}

export interface DiscoveredNetwork {
  /** From the ServiceCIDR objects; undefined when that API is not served or was not read. */
  serviceCidrs?: readonly string[] | undefined;
  /** Why `serviceCidrs` is undefined when the API server was asked: it names the server's version. */
  serviceCidrsMissing?: string | undefined;
  /** `spec.clusterIPs` of Service default/kubernetes; undefined when not read. */
  apiServerServiceIps?: readonly string[] | undefined;
  /** Undefined when the Nodes were not read. */
  nodes?: readonly DiscoveredNode[] | undefined;
  /** Why a part was not read (a one-shot discovery says; the webhook's caches log it). */
  problems?: readonly string[] | undefined;
}

const unique = (items: readonly string[]) => [...new Set(items)];

/** The parts of a Node NO_PROXY needs; the rest of the object (status, images) is dropped. */
export function summarizeNode(node: Plain<V1Node>): DiscoveredNode {
  const addresses: string[] = [];
  const hostnames: string[] = [];
  for (const { type, address } of node.status?.addresses ?? []) {
    if (typeof address !== 'string' || address === '') continue;
    if (type === 'InternalIP' || type === 'ExternalIP') {
      if (isIpAddress(address)) addresses.push(address);
    } else if (type === 'Hostname' || type === 'InternalDNS' || type === 'ExternalDNS') {
      hostnames.push(address.toLowerCase());
    }
  }
  const name = node.metadata?.name ?? '';
  const podCidrs = node.spec?.podCIDRs ?? (node.spec?.podCIDR ? [node.spec.podCIDR] : []);
  return {
    name,
    addresses: unique(addresses),
    hostnames: unique([...(name ? [name.toLowerCase()] : []), ...hostnames]),
    podCidrs: unique(podCidrs.filter((cidr) => parseCidr(cidr) !== undefined)),
  };
}

interface ServiceCidrObject {
  spec?: { cidrs?: string[] };
}

/** Every range of the ServiceCIDR objects, in their order, each once. */
export function serviceCidrsOf(objects: readonly ServiceCidrObject[]): string[] {
  return unique(
    objects.flatMap((o) => o.spec?.cidrs ?? []).filter((cidr) => parseCidr(cidr) !== undefined),
  );
}

interface ServiceObject {
  spec?: { clusterIP?: string; clusterIPs?: string[] };
}

/** The cluster IPs of the `kubernetes` Service (both families on a dual-stack cluster). */
export function serviceIpsOf(service: ServiceObject): string[] {
  const ips = service.spec?.clusterIPs ?? (service.spec?.clusterIP ? [service.spec.clusterIP] : []);
  return unique(ips.filter(isIpAddress));
}
