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
to reconcilers.templates.files (they are mounted next to it, under templates/). Without
reconcilers it is the binary's own default: quotas and limitrange.
*/}}
{{- define "kfx-controller.config" -}}
{{- $config := deepCopy (.Values.config | default dict) -}}
{{- $reconcilers := $config.reconcilers | default (dict "quotas" (dict) "limitrange" (dict)) -}}
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

{{/* "true" when the reconciler is in the configuration and not set to false. */}}
{{- define "kfx-controller.enabled" -}}
{{- $reconcilers := index . 0 -}}
{{- $name := index . 1 -}}
{{- if and (hasKey $reconcilers $name) (ne (toString (index $reconcilers $name)) "false") -}}true{{- end -}}
{{- end -}}
