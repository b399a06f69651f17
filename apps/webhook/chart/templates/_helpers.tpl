{{/* Names and labels shared by every object of the release. */}}

{{- define "kfx-webhook.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "kfx-webhook.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "kfx-webhook.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "kfx-webhook.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "kfx-webhook.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kfx-webhook.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "kfx-webhook.labels" -}}
{{ include "kfx-webhook.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: kfx
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "kfx-webhook.secretName" -}}
{{- default (printf "%s-tls" (include "kfx-webhook.fullname" .)) .Values.tls.secretName -}}
{{- end -}}

{{- define "kfx-webhook.certificateName" -}}
{{- printf "%s-serving" (include "kfx-webhook.fullname" .) -}}
{{- end -}}

{{/* The kfx-webhook configuration file (see the app's README). */}}
{{- define "kfx-webhook.config" -}}
{{- $config := dict "port" .Values.port "metricsPort" .Values.metricsPort "logLevel" .Values.logLevel "shutdownTimeoutMs" .Values.shutdownTimeoutMs -}}
{{- $_ := set $config "tls" (dict "certFile" "/etc/kfx-webhook/tls/tls.crt" "keyFile" "/etc/kfx-webhook/tls/tls.key") -}}
{{- if .Values.proxyInjector.config }}{{ $_ := set $config "proxyInjector" .Values.proxyInjector.config }}{{ end -}}
{{- if .Values.pvcRewriter.config.rules }}{{ $_ := set $config "pvcRewriter" .Values.pvcRewriter.config }}{{ end -}}
{{- toYaml $config -}}
{{- end -}}

{{/*
What the webhook reads from the API, as ClusterRole rules (YAML list; empty when nothing):
StorageClasses for pvc-rewriter's missing-class warning, Namespaces when a rule selects by
namespace labels, ConfigMaps when proxy-injector takes per-namespace overrides from one.
*/}}
{{- define "kfx-webhook.apiRules" -}}
{{- if and .Values.pvcRewriter.enabled .Values.pvcRewriter.config.rules }}
- apiGroups: ["storage.k8s.io"]
  resources: ["storageclasses"]
  verbs: ["list", "watch"]
{{- $selects := false }}
{{- range .Values.pvcRewriter.config.rules }}{{ if .namespaceSelector }}{{ $selects = true }}{{ end }}{{ end }}
{{- if $selects }}
- apiGroups: [""]
  resources: ["namespaces"]
  verbs: ["list", "watch"]
{{- end }}
{{- end }}
{{- if and .Values.proxyInjector.enabled .Values.proxyInjector.config.namespaceConfigMap }}
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["list", "watch"]
{{- end }}
{{- end -}}
