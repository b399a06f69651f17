// How clients outside the cluster reach the proxy: a LoadBalancer or NodePort Service that
// carries TLS straight to the proxy, or an Ingress. An ingress-nginx Ingress terminates TLS
// with the same cert-manager Secret (so the address's certificate and CA stay the ones the
// clients trust), re-encrypts to the proxy, and must not buffer or time out watches.
import type { V1Ingress, V1Service } from '@kubernetes/client-node';
import {
  addresses,
  metadata,
  selectorLabels,
  servingSecretName,
  type ManifestSettings,
} from './settings.js';

const SERVICE_TYPES = {
  loadbalancer: 'LoadBalancer',
  nodeport: 'NodePort',
  ingress: 'ClusterIP',
} as const;

export function service(s: ManifestSettings): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadata(s),
    spec: {
      type: SERVICE_TYPES[s.expose],
      selector: selectorLabels(s),
      ports: [
        {
          name: 'https',
          port: s.port,
          targetPort: 'https',
          protocol: 'TCP',
          ...(s.expose === 'nodeport' && s.nodePort !== undefined ? { nodePort: s.nodePort } : {}),
        },
      ],
    },
  };
}

/** ingress-nginx settings for a streaming API behind it. */
export const INGRESS_ANNOTATIONS: Record<string, string> = {
  'nginx.ingress.kubernetes.io/backend-protocol': 'HTTPS',
  'nginx.ingress.kubernetes.io/proxy-buffering': 'off',
  'nginx.ingress.kubernetes.io/proxy-request-buffering': 'off',
  'nginx.ingress.kubernetes.io/proxy-read-timeout': '3600',
  'nginx.ingress.kubernetes.io/proxy-send-timeout': '3600',
  'nginx.ingress.kubernetes.io/proxy-body-size': '4m',
};

export function ingress(s: ManifestSettings): V1Ingress | undefined {
  if (s.expose !== 'ingress') return undefined;
  const { dnsNames } = addresses(s);
  const paths = s.allowPaths.map((path) => ({
    path,
    pathType: 'Prefix',
    backend: { service: { name: s.name, port: { name: 'https' } } },
  }));
  const hosts: (string | undefined)[] = dnsNames.length > 0 ? dnsNames : [undefined];
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { ...metadata(s), annotations: INGRESS_ANNOTATIONS },
    spec: {
      ingressClassName: s.ingressClass,
      tls: [
        { ...(dnsNames.length > 0 ? { hosts: dnsNames } : {}), secretName: servingSecretName(s) },
      ],
      rules: hosts.map((host) => ({ ...(host === undefined ? {} : { host }), http: { paths } })),
    },
  };
}
