// What the rendered manifests depend on, once validated, and the names derived from it: the one
// place that says which Secret holds the certificate and which labels select the proxy's Pods.
import { isIP } from 'node:net';

type Exposure = 'loadbalancer' | 'nodeport' | 'ingress';

export interface ManifestSettings {
  name: string;
  namespace: string;
  image: string;
  replicas: number;
  /** IPs and DNS names clients use; all go into the certificate. */
  externalAddresses: readonly string[];
  expose: Exposure;
  /** The Service (and external) port. */
  port: number;
  nodePort: number | undefined;
  ingressClass: string;
  /** An existing cert-manager issuer; undefined: a self-signed CA is rendered too. */
  issuer: { kind: 'Issuer' | 'ClusterIssuer'; name: string } | undefined;
  caDuration: string;
  certDuration: string;
  renewBefore: string;
  allowPaths: readonly string[];
  upgrades: boolean;
  /** Remote nodes whose Pods' tokens come in (serve's `remoteNodes`). */
  remoteNodes: readonly string[];
  /** Namespaces of the remote workloads: where the proxy may read Pods and request tokens. */
  remoteNamespaces: readonly string[];
  /** interLink's ConfigMap or Secret whose copy of the CA the proxy watches (`serve`'s option). */
  interlinkConfig: { namespace: string; name: string } | undefined;
  /** An existing Secret with the serving certificate; undefined: cert-manager issues one. */
  tlsSecret: string | undefined;
}

/** Port the proxy listens on inside the Pod, and the one for probes and metrics. */
export const CONTAINER_PORT = 8443;
export const METRICS_PORT = 9090;
/** Where the Pod finds its serving certificate and the apiserver's CA. */
export const TLS_DIR = '/etc/kfx-expose-api/tls';
export const KUBE_CA_DIR = '/etc/kfx-expose-api/kube-ca';

export const servingSecretName = (s: Pick<ManifestSettings, 'name' | 'tlsSecret'>) =>
  s.tlsSecret ?? `${s.name}-tls`;
export const caSecretName = (s: Pick<ManifestSettings, 'name'>) => `${s.name}-ca`;

export function selectorLabels(s: Pick<ManifestSettings, 'name'>): Record<string, string> {
  return { 'app.kubernetes.io/name': 'kfx-expose-api', 'app.kubernetes.io/instance': s.name };
}

export function labels(s: Pick<ManifestSettings, 'name'>): Record<string, string> {
  return {
    ...selectorLabels(s),
    'app.kubernetes.io/component': 'api-exposer',
    'app.kubernetes.io/part-of': 'kfx',
  };
}

export function metadata(s: Pick<ManifestSettings, 'name' | 'namespace'>, name = s.name) {
  return { name, namespace: s.namespace, labels: labels(s) };
}

/** The external addresses split the way a certificate and an Ingress want them. */
export function addresses(s: Pick<ManifestSettings, 'externalAddresses'>): {
  ipAddresses: string[];
  dnsNames: string[];
} {
  const ipAddresses = s.externalAddresses.filter((a) => isIP(a) !== 0);
  const dnsNames = s.externalAddresses.filter((a) => isIP(a) === 0);
  return { ipAddresses, dnsNames };
}

/** The Service's own names, so that clients inside the cluster can verify the certificate too. */
export function internalDnsNames(s: Pick<ManifestSettings, 'name' | 'namespace'>): string[] {
  return [`${s.name}.${s.namespace}.svc`, `${s.name}.${s.namespace}.svc.cluster.local`];
}

/** Whether the proxy's Pod needs its ServiceAccount's token: for the door's and the watch's calls. */
export const needsOwnIdentity = (s: Pick<ManifestSettings, 'remoteNodes' | 'interlinkConfig'>) =>
  s.remoteNodes.length > 0 || s.interlinkConfig !== undefined;
