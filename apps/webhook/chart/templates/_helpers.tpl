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
{{- $suffix := ternary "certs" "tls" (eq .Values.tls.mode "self-managed") -}}
{{- default (printf "%s-%s" (include "kfx-webhook.fullname" .) $suffix) .Values.tls.secretName -}}
{{- end -}}

{{/*
Whether the webhook talks to the API: a handler reads something (see kfx-webhook.apiRules), or
it keeps its own certificate (tls.mode=self-managed). Only then is a token mounted.
*/}}
{{- define "kfx-webhook.usesApi" -}}
{{- or (ne (include "kfx-webhook.apiRules" . | trim) "") (eq .Values.tls.mode "self-managed") -}}
{{- end -}}

{{- define "kfx-webhook.certificateName" -}}
{{- printf "%s-serving" (include "kfx-webhook.fullname" .) -}}
{{- end -}}

{{/*
The kfx-webhook configuration file (see the app's README). A handler that is not enabled gets no
section: its caches would need the API rights the chart then does not grant.
*/}}
{{- define "kfx-webhook.config" -}}
{{- $config := dict "port" .Values.port "metricsPort" .Values.metricsPort "logLevel" .Values.logLevel "shutdownTimeoutMs" .Values.shutdownTimeoutMs -}}
{{- $tls := dict "certFile" "/etc/kfx-webhook/tls/tls.crt" "keyFile" "/etc/kfx-webhook/tls/tls.key" -}}
{{- if .Values.tls.clientCaConfigMap }}{{ $_ := set $tls "clientCaFile" "/etc/kfx-webhook/client-ca/ca.crt" }}{{ end -}}
{{- if eq .Values.tls.mode "self-managed" -}}
{{- $tls = dict "selfManaged" (include "kfx-webhook.selfManaged" . | fromYaml) -}}
{{- end -}}
{{- $_ := set $config "tls" $tls -}}
{{- if .Values.limits }}{{ $_ := set $config "limits" .Values.limits }}{{ end -}}
{{- if and .Values.proxyInjector.enabled .Values.proxyInjector.config }}{{ $_ := set $config "proxyInjector" .Values.proxyInjector.config }}{{ end -}}
{{- if and .Values.pvcRewriter.enabled .Values.pvcRewriter.config.rules }}{{ $_ := set $config "pvcRewriter" .Values.pvcRewriter.config }}{{ end -}}
{{- toYaml $config -}}
{{- end -}}

{{/*
What the webhook reads from the API, as ClusterRole rules (YAML list; empty when nothing). The
code decides (each handler's apiRules() in @kfx/proxy-injector and @kfx/pvc-rewriter, from its
parsed section); src/api-rules.integration.test.ts renders this for a table of values and fails
where it grants other rules than the code computes from the rendered configuration:
StorageClasses for pvc-rewriter's missing-class warning, Namespaces when a rule selects by
namespace labels; for proxy-injector, ConfigMaps (list/watch for the per-namespace overrides and
the proxy CA bundle, get for the ConfigMaps Pods name in envFrom unless readEnvFrom is false),
and, unless discover is false, Nodes, ServiceCIDRs and the `kubernetes` Service for NO_PROXY.
Never Secrets.
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
{{- if and .Values.proxyInjector.enabled .Values.proxyInjector.config }}
{{- $proxy := .Values.proxyInjector.config }}
{{- $configMapVerbs := list }}
{{- if or $proxy.namespaceConfigMap $proxy.caBundle }}{{ $configMapVerbs = list "list" "watch" }}{{ end }}
{{- if ne (toString (dig "readEnvFrom" true $proxy)) "false" }}{{ $configMapVerbs = append $configMapVerbs "get" }}{{ end }}
{{- if $configMapVerbs }}
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: {{ toJson $configMapVerbs }}
{{- end }}
{{- if ne (toString (dig "discover" true $proxy)) "false" }}
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["list", "watch"]
- apiGroups: ["networking.k8s.io"]
  resources: ["servicecidrs"]
  verbs: ["list", "watch"]
- apiGroups: [""]
  resources: ["services"]
  resourceNames: ["kubernetes"]
  verbs: ["get"]
{{- end }}
{{- end }}
{{- end -}}

{{/*
resources.limits.memory in MiB (rounded down), or "" without a limit. Kubernetes quantities
with a binary (Ki, Mi, Gi, Ti) or decimal (k, M, G, T) suffix, or plain bytes.
*/}}
{{- define "kfx-webhook.memoryLimitMiB" -}}
{{- $quantity := toString (dig "limits" "memory" "" (.Values.resources | default dict)) -}}
{{- if $quantity -}}
{{- if not (regexMatch "^[0-9]+(Ki|Mi|Gi|Ti|k|M|G|T)?$" $quantity) -}}
{{- fail (printf "resources.limits.memory: expected a whole number with Ki, Mi, Gi, Ti, k, M, G or T (the heap size is derived from it), got %q; or set nodeOptions" $quantity) -}}
{{- end -}}
{{- $number := regexFind "^[0-9]+" $quantity | int64 -}}
{{- $unit := trimPrefix (toString $number) $quantity -}}
{{- $bytes := dict "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 "k" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 "" 1 -}}
{{- div (mul $number (get $bytes $unit)) 1048576 -}}
{{- end -}}
{{- end -}}

{{/*
NODE_OPTIONS: nodeOptions if set, else a V8 heap sized from the memory limit (old space half the
limit, semi-space limit/64 between 1 and 16 MiB), so that the heap is collected before the
container reaches its limit instead of growing past it; "" without either.
*/}}
{{- define "kfx-webhook.nodeOptions" -}}
{{- if .Values.nodeOptions -}}
{{- .Values.nodeOptions -}}
{{- else -}}
{{- $mib := include "kfx-webhook.memoryLimitMiB" . -}}
{{- if $mib -}}
{{- $limit := $mib | int64 -}}
{{- if lt $limit 64 -}}
{{- fail (printf "resources.limits.memory: %s is below the 64Mi kfx-webhook needs to start" (toString .Values.resources.limits.memory)) -}}
{{- end -}}
{{- printf "--max-old-space-size=%d --max-semi-space-size=%d" (div $limit 2) (max 1 (min 16 (div $limit 64))) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The CIDRs the kube-apiserver calls the webhook from, as a JSON list: networkPolicy.apiServerCidrs,
else (and without extraFrom) the addresses of the `kubernetes` Service's EndpointSlices at install
time, where the apiservers listen: the control-plane nodes of a self-hosted cluster. Empty where
there is no cluster to ask (helm template).
*/}}
{{- define "kfx-webhook.apiServerCidrs" -}}
{{- $policy := .Values.networkPolicy -}}
{{- $cidrs := $policy.apiServerCidrs | default list -}}
{{- if not (or $cidrs $policy.extraFrom) -}}
{{- $slices := lookup "discovery.k8s.io/v1" "EndpointSlice" "default" "" -}}
{{- range (get $slices "items") | default list -}}
{{- if eq (get (.metadata.labels | default dict) "kubernetes.io/service-name") "kubernetes" -}}
{{- range .endpoints | default list -}}
{{- range .addresses | default list -}}
{{- $cidrs = append $cidrs (printf "%s/%s" . (ternary "128" "32" (contains ":" .))) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $cidrs | uniq | toJson -}}
{{- end -}}

{{/*
tls.mode=generated: the CA and the serving certificate the chart makes itself (genCA,
genSignedCert), so that a first install needs nothing else in the cluster. Made once per render
and kept in .Values.tls._generated, because the Secret and the webhook configuration must name
the same CA. An upgrade keeps the Secret found in the cluster (lookup) until it is within
tls.generated.renewBeforeDays of its end (annotation tls.kfx.dev/not-after), then makes new ones;
the caBundle then holds the new CA and the old one, so the apiserver trusts the Pods until the
kubelet has given them the new certificate. helm template and --dry-run (no lookup) make new
ones each time.
*/}}
{{- define "kfx-webhook.generatedTls" -}}
{{- if not (hasKey .Values.tls "_generated") -}}
{{- $fullname := include "kfx-webhook.fullname" . -}}
{{- $days := int .Values.tls.generated.durationDays -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "kfx-webhook.secretName" .) | default dict -}}
{{- $data := $existing.data | default dict -}}
{{- $notAfter := dig "metadata" "annotations" "tls.kfx.dev/not-after" "" $existing -}}
{{- $keep := false -}}
{{- if and $notAfter (index $data "tls.crt") (index $data "tls.key") (index $data "ca.crt") -}}
{{- $renewAt := sub (toDate "2006-01-02T15:04:05Z07:00" $notAfter | unixEpoch | int64) (mul (int .Values.tls.generated.renewBeforeDays) 86400) -}}
{{- $keep = lt (now | unixEpoch | int64) $renewAt -}}
{{- end -}}
{{- if $keep -}}
{{- $_ := set .Values.tls "_generated" (dict "crt" (index $data "tls.crt") "key" (index $data "tls.key") "ca" (index $data "ca.crt") "caBundle" (index $data "ca.crt") "notAfter" $notAfter) -}}
{{- else -}}
{{- $ca := genCA (printf "%s-ca" $fullname) $days -}}
{{- $names := list (printf "%s.%s.svc" $fullname .Release.Namespace) (printf "%s.%s.svc.cluster.local" $fullname .Release.Namespace) -}}
{{- $cert := genSignedCert (printf "%s.%s.svc" $fullname .Release.Namespace) nil $names $days $ca -}}
{{- $bundle := $ca.Cert -}}
{{- with index $data "ca.crt" }}{{ $bundle = printf "%s\n%s" (trimSuffix "\n" $ca.Cert) (b64dec .) }}{{ end -}}
{{- $end := now | dateModify (printf "+%dh" (mul $days 24)) | date "2006-01-02T15:04:05Z07:00" -}}
{{- $_ := set .Values.tls "_generated" (dict "crt" ($cert.Cert | b64enc) "key" ($cert.Key | b64enc) "ca" ($ca.Cert | b64enc) "caBundle" ($bundle | b64enc) "notAfter" $end) -}}
{{- end -}}
{{- end -}}
{{- end -}}


{{/*
tls.mode=self-managed: the configuration's tls.selfManaged. The webhook keeps its certificate in
the Secret the chart renders empty (secret-self-managed.yaml) and the caBundle of the webhook
configuration, for the Service's names.
*/}}
{{- define "kfx-webhook.selfManaged" -}}
{{- $fullname := include "kfx-webhook.fullname" . -}}
{{- $settings := .Values.tls.selfManaged -}}
{{- if .Values.tls.clientCaConfigMap -}}
{{- fail "tls.clientCaConfigMap: not with tls.mode=self-managed, whose certificate is kept through the API, not read from files; use tls.mode=cert-manager or secret for client certificates" -}}
{{- end -}}
{{- if ge (int $settings.renewBeforeDays) (int $settings.durationDays) -}}
{{- fail (printf "tls.selfManaged.renewBeforeDays: expected fewer days than durationDays (%d), got %d" (int $settings.durationDays) (int $settings.renewBeforeDays)) -}}
{{- end -}}
secret:
  namespace: {{ .Release.Namespace }}
  name: {{ include "kfx-webhook.secretName" . }}
webhookConfiguration: {{ $fullname }}
dnsNames:
  - {{ $fullname }}.{{ .Release.Namespace }}.svc
  - {{ $fullname }}.{{ .Release.Namespace }}.svc.cluster.local
durationDays: {{ int $settings.durationDays }}
renewBeforeDays: {{ int $settings.renewBeforeDays }}
checkIntervalSeconds: {{ int $settings.checkIntervalSeconds }}
caPropagationSeconds: {{ int $settings.caPropagationSeconds }}
{{- end -}}
