{{- define "copies.deploymentConfig" -}}
receivers:
  k8s_cluster:
    collection_interval: 10s
service:
  pipelines:
    metrics:
      receivers: [k8s_cluster]
      exporters: [debug]
{{- end }}

{{- define "copies.daemonsetConfig" -}}
{{- if .Values.presets.logsCollection.enabled }}
receivers:
  filelog:
    include: [/var/log/pods/*/*/*.log]
{{- end }}
{{- end }}

{{/* The collector idiom: a deep copy of the user's config merged with what the mode needs. */}}
{{- define "copies.config" -}}
{{- $values := deepCopy .Values }}
{{- $data := dict "Values" $values | mustMergeOverwrite (deepCopy .) }}
{{- $config := include (printf "copies.%sConfig" .Values.mode) $data | fromYaml }}
{{- $merged := merge $config (deepCopy .Values.config) }}
{{- tpl (toYaml $merged) . }}
{{- end }}
