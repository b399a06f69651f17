{{/* Names and labels shared by every object of the release. */}}

{{- define "kfx-controller.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "kfx-controller.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "kfx-controller.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "kfx-controller.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "kfx-controller.serviceAccountName" -}}
{{- default (include "kfx-controller.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{- define "kfx-controller.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kfx-controller.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "kfx-controller.labels" -}}
{{ include "kfx-controller.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: kfx
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/*
The kfx-controller configuration file: .Values.config, with the files of .Values.templates added
to reconcilers.templates.files (they are mounted next to it, under templates/). quotas and
limitrange run unless reconcilers names them false. The default is added here, not in
values.yaml: there a table under quotas would make Helm warn ("cannot overwrite table with non
table") about every `quotas: false`. With preset kubeflow, the reconcilers the preset names that
config.reconcilers does not are added (a reconciler named there replaces the preset's settings
for it), and replacesUpstream is true unless config sets it.
*/}}
{{- define "kfx-controller.config" -}}
{{- $config := deepCopy (.Values.config | default dict) -}}
{{- $reconcilers := $config.reconcilers | default dict -}}
{{- $preset := .Values.preset | default "none" -}}
{{- if eq $preset "kubeflow" -}}
{{- range $name, $settings := (include "kfx-controller.kubeflowPreset" . | fromYaml) }}
{{- if not (hasKey $reconcilers $name) }}{{ $_ := set $reconcilers $name $settings }}{{ end }}
{{- end -}}
{{- if not (hasKey $config "replacesUpstream") }}{{ $_ := set $config "replacesUpstream" true }}{{ end -}}
{{- else if ne $preset "none" -}}
{{- fail (printf "preset: %q is not a preset (none, kubeflow)" $preset) -}}
{{- end -}}
{{- range $name := list "quotas" "limitrange" }}
{{- if not (hasKey $reconcilers $name) }}{{ $_ := set $reconcilers $name dict }}{{ end }}
{{- end -}}
{{- if .Values.templates -}}
{{- $templates := get $reconcilers "templates" | default dict -}}
{{- $files := $templates.files | default list -}}
{{- range $name, $_ := .Values.templates }}{{ $files = append $files (printf "templates/%s" $name) }}{{ end -}}
{{- $_ := set $templates "files" $files -}}
{{- $_ := set $reconcilers "templates" $templates -}}
{{- end -}}
{{- $_ := set $config "reconcilers" $reconcilers -}}
{{- toYaml $config -}}
{{- end -}}

{{/*
preset kubeflow: exactly what the upstream Kubeflow profile controller makes for a Profile (the
namespace with its labels and owner annotation, default-editor and default-viewer bound to
kubeflow-edit and kubeflow-view, namespaceAdmin binding the owner to kubeflow-admin annotated for
KFAM, kf-resource-quota from spec.resourceQuotaSpec, the plugins' identities, the Istio
AuthorizationPolicy ns-owner-access-istio), and none of kfx's own quota and limits.
*/}}
{{- define "kfx-controller.kubeflowPreset" -}}
namespace: {}
rbac:
  bindings:
    - name: namespaceAdmin
      clusterRole: kubeflow-admin
      owner: true
profile-quota: {}
templates:
  shipped: [ns-owner-access-istio]
quotas: false
limitrange: false
{{- end -}}

{{/* "true" when the reconciler is in the configuration and not set to false. */}}
{{- define "kfx-controller.enabled" -}}
{{- $reconcilers := index . 0 -}}
{{- $name := index . 1 -}}
{{- if and (hasKey $reconcilers $name) (ne (toString (index $reconcilers $name)) "false") -}}true{{- end -}}
{{- end -}}

{{/*
resources.limits.memory in MiB (rounded down), or "" without a limit. Kubernetes quantities
with a binary (Ki, Mi, Gi, Ti) or decimal (k, M, G, T) suffix, or plain bytes.
*/}}
{{- define "kfx-controller.memoryLimitMiB" -}}
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
{{- define "kfx-controller.nodeOptions" -}}
{{- if .Values.nodeOptions -}}
{{- .Values.nodeOptions -}}
{{- else -}}
{{- $mib := include "kfx-controller.memoryLimitMiB" . -}}
{{- if $mib -}}
{{- $limit := $mib | int64 -}}
{{- if lt $limit 128 -}}
{{- fail (printf "resources.limits.memory: %s is below the 128Mi kfx-controller needs to start" (toString .Values.resources.limits.memory)) -}}
{{- end -}}
{{- printf "--max-old-space-size=%d --max-semi-space-size=%d" (div $limit 2) (max 1 (min 16 (div $limit 64))) -}}
{{- end -}}
{{- end -}}
{{- end -}}
