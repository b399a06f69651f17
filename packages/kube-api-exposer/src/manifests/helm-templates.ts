// The Helm chart's templates. They are written as Helm users expect to read them, and a test
// renders them with `helm template` and compares the result with the YAML renderer's objects,
// so the two outputs cannot drift apart.
import { CONTAINER_PORT, KUBE_CA_DIR, METRICS_PORT, TLS_DIR } from './settings.js';
import { INGRESS_ANNOTATIONS } from './exposure.js';

const helpers = `{{- define "kfx-expose-api.selectorLabels" -}}
app.kubernetes.io/name: kfx-expose-api
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "kfx-expose-api.labels" -}}
{{ include "kfx-expose-api.selectorLabels" . }}
app.kubernetes.io/component: api-exposer
app.kubernetes.io/part-of: kfx
{{- end }}

{{- define "kfx-expose-api.metadata" -}}
namespace: {{ .Release.Namespace }}
labels:
  {{- include "kfx-expose-api.labels" . | nindent 2 }}
{{- end }}
`;

const serviceAccount = `apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ .Release.Name }}
  {{- include "kfx-expose-api.metadata" . | nindent 2 }}
automountServiceAccountToken: false
`;

const certificates = `{{- if not .Values.certificate.existingSecret }}
{{- $issuerRef := dict "group" "cert-manager.io" "kind" "Issuer" "name" (printf "%s-ca" .Release.Name) }}
{{- if .Values.certificate.issuer.name }}
{{- $issuerRef = dict "group" "cert-manager.io" "kind" .Values.certificate.issuer.kind "name" .Values.certificate.issuer.name }}
{{- else }}
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: {{ .Release.Name }}-selfsigned
  {{- include "kfx-expose-api.metadata" . | nindent 2 }}
spec:
  selfSigned: {}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: {{ .Release.Name }}-ca
  {{- include "kfx-expose-api.metadata" . | nindent 2 }}
spec:
  isCA: true
  commonName: {{ .Release.Name }} CA
  secretName: {{ .Release.Name }}-ca
  duration: {{ .Values.certificate.caDuration }}
  # The CA keeps its key when renewed: clients holding the previous CA certificate keep working.
  privateKey:
    algorithm: ECDSA
    size: 256
    rotationPolicy: Never
  issuerRef:
    group: cert-manager.io
    kind: Issuer
    name: {{ .Release.Name }}-selfsigned
---
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: {{ .Release.Name }}-ca
  {{- include "kfx-expose-api.metadata" . | nindent 2 }}
spec:
  ca:
    secretName: {{ .Release.Name }}-ca
{{- end }}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: {{ .Release.Name }}
  {{- include "kfx-expose-api.metadata" . | nindent 2 }}
spec:
  secretName: {{ .Release.Name }}-tls
  dnsNames:
    {{- range .Values.certificate.dnsNames }}
    - {{ . | quote }}
    {{- end }}
    - {{ .Release.Name }}.{{ .Release.Namespace }}.svc
    - {{ .Release.Name }}.{{ .Release.Namespace }}.svc.cluster.local
  {{- with .Values.certificate.ipAddresses }}
  ipAddresses:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  duration: {{ .Values.certificate.duration }}
  renewBefore: {{ .Values.certificate.renewBefore }}
  usages:
    - server auth
    - digital signature
  privateKey:
    algorithm: ECDSA
    size: 256
    rotationPolicy: Always
  issuerRef:
    {{- toYaml $issuerRef | nindent 4 }}
{{- end }}
`;

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  {{- include "kfx-expose-api.metadata" . | nindent 2 }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels:
      {{- include "kfx-expose-api.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "kfx-expose-api.labels" . | nindent 8 }}
    spec:
      serviceAccountName: {{ .Release.Name }}
      # No API credential in the Pod (the proxy forwards its callers' tokens only), but with
      # remote nodes: the door's own calls (never forwarded).
      automountServiceAccountToken: {{ if or .Values.remoteWorkloads.nodes .Values.remoteWorkloads.interlinkConfig.name }}true{{ else }}false{{ end }}
      securityContext:
        runAsNonRoot: true
        runAsUser: 65532
        runAsGroup: 65532
        fsGroup: 65532
        seccompProfile:
          type: RuntimeDefault
      terminationGracePeriodSeconds: 30
      containers:
        - name: proxy
          image: {{ .Values.image }}
          args:
            - expose-api
            - serve
            - --listen=0.0.0.0:${CONTAINER_PORT}
            - --tls-cert=${TLS_DIR}/tls.crt
            - --tls-key=${TLS_DIR}/tls.key
            - --upstream-ca=${KUBE_CA_DIR}/ca.crt
            - --metrics-listen=0.0.0.0:${METRICS_PORT}
            {{- range .Values.allowPaths }}
            - --allow-path={{ . }}
            {{- end }}
            {{- if not .Values.upgrades }}
            - --no-upgrades
            {{- end }}
            {{- range .Values.remoteWorkloads.nodes }}
            - --remote-node={{ . }}
            {{- end }}
            {{- with .Values.remoteWorkloads.interlinkConfig }}
            {{- if .name }}
            - --interlink-config={{ .namespace }}/{{ .name }}
            {{- end }}
            {{- end }}
          ports:
            - name: https
              containerPort: ${CONTAINER_PORT}
              protocol: TCP
            - name: metrics
              containerPort: ${METRICS_PORT}
              protocol: TCP
          readinessProbe:
            httpGet:
              path: /readyz
              port: metrics
            periodSeconds: 10
            timeoutSeconds: 3
          livenessProbe:
            httpGet:
              path: /healthz
              port: metrics
            periodSeconds: 10
            timeoutSeconds: 3
          resources:
            requests:
              cpu: 50m
              memory: 64Mi
            # The proxy's caps bound its memory: about 95 MiB idle + 200 KiB for each of the
            # 500 connections of --max-connections (kfx docs: kube-api-exposer/limits.md).
            limits:
              memory: 256Mi
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities:
              drop:
                - ALL
          volumeMounts:
            - name: tls
              mountPath: ${TLS_DIR}
              readOnly: true
            - name: kube-ca
              mountPath: ${KUBE_CA_DIR}
              readOnly: true
      volumes:
        # A folder mount, never subPath: renewed certificates must reach the Pod.
        - name: tls
          secret:
            secretName: {{ .Values.certificate.existingSecret | default (printf "%s-tls" .Release.Name) }}
            defaultMode: 288 # 0440
        - name: kube-ca
          configMap:
            name: kube-root-ca.crt
            items:
              - key: ca.crt
                path: ca.crt
      {{- if gt (int .Values.replicas) 1 }}
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: kubernetes.io/hostname
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              {{- include "kfx-expose-api.selectorLabels" . | nindent 14 }}
      {{- end }}
`;

const podDisruptionBudget = `{{- if gt (int .Values.replicas) 1 }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ .Release.Name }}
  {{- include "kfx-expose-api.metadata" . | nindent 2 }}
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      {{- include "kfx-expose-api.selectorLabels" . | nindent 6 }}
{{- end }}
`;

const service = `apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}
  {{- include "kfx-expose-api.metadata" . | nindent 2 }}
spec:
  type: {{ .Values.service.type }}
  selector:
    {{- include "kfx-expose-api.selectorLabels" . | nindent 4 }}
  ports:
    - name: https
      port: {{ .Values.service.port }}
      targetPort: https
      protocol: TCP
      {{- if and (eq .Values.service.type "NodePort") .Values.service.nodePort }}
      nodePort: {{ .Values.service.nodePort }}
      {{- end }}
`;

const annotationLines = Object.entries(INGRESS_ANNOTATIONS)
  .map(([key, value]) => `    ${key}: ${JSON.stringify(value)}`)
  .join('\n');

const ingress = `{{- if .Values.ingress.enabled }}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ .Release.Name }}
  {{- include "kfx-expose-api.metadata" . | nindent 2 }}
  annotations:
${annotationLines}
spec:
  ingressClassName: {{ .Values.ingress.className }}
  tls:
    - secretName: {{ .Values.certificate.existingSecret | default (printf "%s-tls" .Release.Name) }}
      {{- with .Values.certificate.dnsNames }}
      hosts:
        {{- toYaml . | nindent 8 }}
      {{- end }}
  rules:
    {{- $root := . }}
    {{- $hosts := .Values.certificate.dnsNames | default (list "") }}
    {{- range $hosts }}
    - {{- if . }}
      host: {{ . | quote }}
      {{- end }}
      http:
        paths:
          {{- range $root.Values.allowPaths }}
          - path: {{ . }}
            pathType: Prefix
            backend:
              service:
                name: {{ $root.Release.Name }}
                port:
                  name: https
          {{- end }}
    {{- end }}
{{- end }}
`;

const remoteAccess = `{{- $root := . }}
{{- range .Values.remoteWorkloads.namespaces }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ $root.Release.Name }}-remote-workloads
  namespace: {{ . }}
  labels:
    {{- include "kfx-expose-api.labels" $root | nindent 4 }}
rules:
  - apiGroups: [""]
    resources: [pods]
    verbs: [get]
  - apiGroups: [""]
    resources: [serviceaccounts/token]
    verbs: [create]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ $root.Release.Name }}-remote-workloads
  namespace: {{ . }}
  labels:
    {{- include "kfx-expose-api.labels" $root | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ $root.Release.Name }}-remote-workloads
subjects:
  - kind: ServiceAccount
    name: {{ $root.Release.Name }}
    namespace: {{ $root.Release.Namespace }}
{{- end }}
{{- with .Values.remoteWorkloads.interlinkConfig }}
{{- if .name }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ $root.Release.Name }}-interlink-ca
  namespace: {{ .namespace }}
  labels:
    {{- include "kfx-expose-api.labels" $root | nindent 4 }}
rules:
  - apiGroups: [""]
    resources: [configmaps, secrets]
    resourceNames: [{{ .name | quote }}]
    verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ $root.Release.Name }}-interlink-ca
  namespace: {{ .namespace }}
  labels:
    {{- include "kfx-expose-api.labels" $root | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ $root.Release.Name }}-interlink-ca
subjects:
  - kind: ServiceAccount
    name: {{ $root.Release.Name }}
    namespace: {{ $root.Release.Namespace }}
{{- end }}
{{- end }}
`;

/** Template files by path inside the chart. */
export const HELM_TEMPLATES: Readonly<Record<string, string>> = {
  'templates/_helpers.tpl': helpers,
  'templates/serviceaccount.yaml': serviceAccount,
  'templates/remote-access.yaml': remoteAccess,
  'templates/certificates.yaml': certificates,
  'templates/deployment.yaml': deployment,
  'templates/poddisruptionbudget.yaml': podDisruptionBudget,
  'templates/service.yaml': service,
  'templates/ingress.yaml': ingress,
};
