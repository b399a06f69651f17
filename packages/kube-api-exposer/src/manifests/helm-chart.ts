// The manifests as a Helm chart: Chart.yaml, a values.yaml whose defaults are the options the
// chart was rendered with (each value commented), the templates, and NOTES.txt telling the
// installer what to do next. Install it with the release name the objects should have.
import { stringify } from 'yaml';
import { EXPOSER_DASHBOARD, MONITORING_TEMPLATES, MONITORING_VALUES } from './helm-monitoring.js';
import { HELM_TEMPLATES } from './helm-templates.js';
import { addresses, type ManifestSettings } from './settings.js';

export interface ChartOptions {
  /** The chart's version and appVersion. */
  version: string;
}

/** values.yaml as data, for tests and for `helm template --set` users. */
function chartValues(s: ManifestSettings) {
  const { ipAddresses, dnsNames } = addresses(s);
  return {
    image: s.image,
    replicas: s.replicas,
    allowPaths: [...s.allowPaths],
    upgrades: s.upgrades,
    service: {
      type: { loadbalancer: 'LoadBalancer', nodeport: 'NodePort', ingress: 'ClusterIP' }[s.expose],
      port: s.port,
      nodePort: s.nodePort ?? null,
    },
    ingress: { enabled: s.expose === 'ingress', className: s.ingressClass },
    remoteWorkloads: {
      nodes: [...s.remoteNodes],
      namespaces: [...s.remoteNamespaces],
      interlinkConfig: s.interlinkConfig === undefined ? {} : { ...s.interlinkConfig },
    },
    certificate: {
      existingSecret: s.tlsSecret ?? '',
      ipAddresses,
      dnsNames,
      duration: s.certDuration,
      renewBefore: s.renewBefore,
      caDuration: s.caDuration,
      issuer: s.issuer === undefined ? {} : { kind: s.issuer.kind, name: s.issuer.name },
    },
    monitoring: MONITORING_VALUES,
  };
}

const VALUES_HEADER = `# Values of the kfx-expose-api chart. The defaults are the options it was rendered with.
#
# image            the kfx image (runs \`kfx expose-api serve\`)
# replicas         proxy Pods; more than one adds a PodDisruptionBudget and spreads them
# allowPaths       path prefixes forwarded to the apiserver; anything else gets 403
# upgrades         forward exec/attach/port-forward/WebSocket upgrades (false: refuse them)
# service.type     LoadBalancer, NodePort, or ClusterIP (with ingress.enabled)
# service.port     the port clients connect to; service.nodePort pins a NodePort
# ingress          an ingress-nginx Ingress that re-encrypts to the proxy (className)
# remoteWorkloads  nodes: remote nodes (interLink's virtual nodes) whose Pods' tokens come in,
#                  exchanged for short-lived ones; namespaces: where their Pods run (the proxy
#                  may read Pods and request tokens there, and nowhere else); interlinkConfig:
#                  {namespace, name} of interLink's ConfigMap or Secret whose copy of the CA the
#                  proxy compares with what it serves (it may read that one object)
# certificate      SANs of the serving certificate (the external IPs and DNS names), its
#                  duration and renewBefore, the self-signed CA's caDuration, or an existing
#                  cert-manager issuer: {kind: ClusterIssuer, name: my-ca}; existingSecret: a
#                  Secret of yours (tls.crt, tls.key, ca.crt) instead of cert-manager's
`;

export function helmChart(s: ManifestSettings, options: ChartOptions): Record<string, string> {
  const chart = {
    apiVersion: 'v2',
    name: 'kfx-expose-api',
    description:
      'Exposes the Kubernetes API to out-of-cluster compute (interLink plugins) through a streaming proxy that forwards callers’ own tokens only.',
    type: 'application',
    version: options.version,
    appVersion: options.version,
  };
  const notes = `kfx-expose-api {{ .Release.Name }} is installed in {{ .Release.Namespace }}.

Once cert-manager has issued the certificate, give a plugin its address, CA and a token:

  kfx expose-api env --server https://ADDRESS:{{ .Values.service.port }} --ca-secret {{ .Release.Namespace }}/{{ .Release.Name }}-tls
  kfx expose-api kubeconfig --service-account NAMESPACE/NAME --server https://ADDRESS:{{ .Values.service.port }} --ca-secret {{ .Release.Namespace }}/{{ .Release.Name }}-tls --output plugin.kubeconfig
  kfx expose-api check --kubeconfig plugin.kubeconfig
`;
  return {
    'Chart.yaml': stringify(chart, { lineWidth: 0 }),
    'values.yaml': VALUES_HEADER + stringify(chartValues(s), { lineWidth: 0, version: '1.1' }),
    'templates/NOTES.txt': notes,
    ...HELM_TEMPLATES,
    ...MONITORING_TEMPLATES,
    'dashboards/kfx-expose-api.json': `${JSON.stringify(EXPOSER_DASHBOARD, null, 2)}\n`,
  };
}
