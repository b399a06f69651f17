// The chart's monitoring, off by default (values `monitoring.*`): a metrics Service and
// Prometheus Operator's ServiceMonitor, a PrometheusRule whose alerts each name the `kfx
// doctor` check to run, and a Grafana dashboard ConfigMap. Only in the Helm chart: the YAML
// renderer's output is what the chart renders with its defaults, which render none of these.
import { METRICS_PORT } from './settings.js';

const JOB = '{{- $job := printf "job=%q" (printf "%s-metrics" .Release.Name) }}';

export const MONITORING_VALUES = {
  serviceMonitor: { enabled: false, interval: '30s', labels: {} },
  prometheusRule: { enabled: false, labels: {}, for: '10m', certificateDays: 14 },
  dashboard: { enabled: false, namespace: '', labels: { grafana_dashboard: '1' } },
};

const serviceMonitor = `{{- if .Values.monitoring.serviceMonitor.enabled }}
apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-metrics
  {{- include "kfx-expose-api.metadata" . | nindent 2 }}
spec:
  type: ClusterIP
  selector:
    {{- include "kfx-expose-api.selectorLabels" . | nindent 4 }}
  ports:
    - name: metrics
      port: ${METRICS_PORT}
      targetPort: metrics
      protocol: TCP
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: {{ .Release.Name }}
  {{- include "kfx-expose-api.metadata" . | nindent 2 }}
  {{- with .Values.monitoring.serviceMonitor.labels }}
  {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  selector:
    matchLabels:
      {{- include "kfx-expose-api.selectorLabels" . | nindent 6 }}
  namespaceSelector:
    matchNames: [{{ .Release.Namespace | quote }}]
  endpoints:
    - port: metrics
      path: /metrics
      interval: {{ .Values.monitoring.serviceMonitor.interval }}
{{- end }}
`;

const prometheusRule = `{{- if .Values.monitoring.prometheusRule.enabled }}
${JOB}
{{- $rule := .Values.monitoring.prometheusRule }}
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: {{ .Release.Name }}
  {{- include "kfx-expose-api.metadata" . | nindent 2 }}
  {{- with $rule.labels }}
  {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  groups:
    - name: kfx-expose-api
      rules:
        - alert: KfxExposerRefusingConnections
          expr: sum by (namespace, limit) (rate(kfx_exposer_connections_refused_total{ {{- $job }}}[5m])) > 0
          for: {{ $rule.for }}
          labels:
            severity: warning
          annotations:
            summary: kfx expose-api refuses connections at a limit
            description: 'Connections are refused at {{ "{{" }} $labels.limit {{ "}}" }} in {{ "{{" }} $labels.namespace {{ "}}" }}: remote workloads cannot reach the API. Run \`kfx doctor --check exposer\`, and raise the limit or find the client that holds the connections.'
        - alert: KfxExposerSheddingLongRunning
          expr: sum by (namespace, limit) (rate(kfx_exposer_long_running_refused_total{ {{- $job }}}[5m])) > 0
          for: {{ $rule.for }}
          labels:
            severity: warning
          annotations:
            summary: kfx expose-api sheds watches and streams
            description: 'Watches, followed logs or upgrades are answered 429 at {{ "{{" }} $labels.limit {{ "}}" }} in {{ "{{" }} $labels.namespace {{ "}}" }}. Run \`kfx doctor --check exposer\`.'
        - alert: KfxExposerEvictingUnauthenticated
          expr: sum by (namespace) (rate(kfx_exposer_connections_evicted_total{ {{- $job }}}[5m])) > 0
          for: {{ $rule.for }}
          labels:
            severity: warning
          annotations:
            summary: kfx expose-api evicts unauthenticated connections
            description: 'Unauthenticated connections in {{ "{{" }} $labels.namespace {{ "}}" }} are closed to make room (maxUnauthenticatedConnections): something opens connections without a token. Run \`kfx doctor --check exposer\`.'
        - alert: KfxExposerCertificateExpiring
          expr: min by (namespace, pod) (kfx_exposer_certificate_expiry_timestamp_seconds{ {{- $job }}}) - time() < {{ $rule.certificateDays }} * 86400
          for: 1h
          labels:
            severity: warning
          annotations:
            summary: kfx expose-api's serving certificate is near its end
            description: 'The certificate {{ "{{" }} $labels.pod {{ "}}" }} serves ends in {{ "{{" }} $value | humanizeDuration {{ "}}" }}: cert-manager has not renewed it. Run \`kfx doctor --check exposer\`.'
{{- end }}
`;

const dashboard = `{{- if .Values.monitoring.dashboard.enabled }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-dashboard
  namespace: {{ .Values.monitoring.dashboard.namespace | default .Release.Namespace }}
  labels:
    {{- include "kfx-expose-api.labels" . | nindent 4 }}
    {{- with .Values.monitoring.dashboard.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
data:
  kfx-expose-api.json: |-
    {{- .Files.Get "dashboards/kfx-expose-api.json" | nindent 4 }}
{{- end }}
`;

const J = '{job=~"$job"}';
type Target = [expr: string, legend: string];
const panels: [title: string, unit: string, targets: Target[]][] = [
  [
    'Requests by code',
    'reqps',
    [[`sum by (code) (rate(kfx_exposer_requests_total${J}[5m]))`, '{{code}}']],
  ],
  [
    'Time to the response head, p99',
    's',
    [
      [
        `histogram_quantile(0.99, sum by (le, method) (rate(kfx_exposer_request_duration_seconds_bucket${J}[5m])))`,
        '{{method}}',
      ],
    ],
  ],
  ['Streams by kind', 'short', [[`sum by (kind) (kfx_exposer_active_streams${J})`, '{{kind}}']]],
  [
    'Connections: open and unauthenticated',
    'short',
    [
      [`sum(kfx_exposer_connections${J})`, 'open'],
      [`sum(kfx_exposer_unauthenticated_connections${J})`, 'unauthenticated'],
    ],
  ],
  [
    'Refused and shed, by limit (run kfx doctor --check exposer)',
    'ops',
    [
      [`sum by (limit) (rate(kfx_exposer_connections_refused_total${J}[5m]))`, 'refused {{limit}}'],
      [`sum by (limit) (rate(kfx_exposer_long_running_refused_total${J}[5m]))`, '429 {{limit}}'],
      [`sum(rate(kfx_exposer_connections_evicted_total${J}[5m]))`, 'evicted'],
    ],
  ],
  [
    'Requests in flight by class',
    'short',
    [[`sum by (class) (kfx_exposer_inflight_requests${J})`, '{{class}}']],
  ],
  [
    'Credential checks by result',
    'ops',
    [[`sum by (result) (rate(kfx_exposer_credential_checks_total${J}[5m]))`, '{{result}}']],
  ],
  [
    'Serving certificate, days left',
    'd',
    [
      [
        `(min by (pod) (kfx_exposer_certificate_expiry_timestamp_seconds${J}) - time()) / 86400`,
        '{{pod}}',
      ],
    ],
  ],
];

/** The Grafana dashboard, as the chart's `dashboards/kfx-expose-api.json`. */
export const EXPOSER_DASHBOARD = {
  uid: 'kfx-expose-api',
  title: 'kfx expose-api',
  tags: ['kfx'],
  editable: true,
  schemaVersion: 39,
  time: { from: 'now-6h', to: 'now' },
  refresh: '1m',
  templating: {
    list: [
      { name: 'datasource', type: 'datasource', query: 'prometheus', label: 'Data source' },
      {
        name: 'job',
        type: 'query',
        label: 'Release',
        datasource: { type: 'prometheus', uid: '${datasource}' },
        query: { query: 'label_values(kfx_exposer_requests_total, job)', refId: 'job' },
        definition: 'label_values(kfx_exposer_requests_total, job)',
        includeAll: true,
        multi: true,
        refresh: 2,
      },
    ],
  },
  panels: panels.map(([title, unit, targets], index) => ({
    id: index + 1,
    type: 'timeseries',
    title,
    datasource: { type: 'prometheus', uid: '${datasource}' },
    gridPos: { h: 8, w: 12, x: (index % 2) * 12, y: Math.floor(index / 2) * 8 },
    fieldConfig: { defaults: { unit }, overrides: [] },
    targets: targets.map(([expr, legendFormat], target) => ({
      refId: String.fromCharCode(65 + target),
      expr,
      legendFormat,
    })),
  })),
};

/** Template files by path inside the chart. */
export const MONITORING_TEMPLATES: Readonly<Record<string, string>> = {
  'templates/servicemonitor.yaml': serviceMonitor,
  'templates/prometheusrule.yaml': prometheusRule,
  'templates/dashboard.yaml': dashboard,
};
