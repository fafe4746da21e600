{{- /* "kit.render" (dict "value" X "ctx" $): X as YAML, through tpl when it holds a template. */}}
{{- define "kit.render" -}}
{{- $text := ternary .value (toYaml .value) (kindIs "string" .value) -}}
{{- if contains "{{" $text -}}
{{- tpl $text .ctx -}}
{{- else -}}
{{- $text -}}
{{- end -}}
{{- end -}}

{{- /* "kit.labels" (dict "extra" .Values.x "ctx" $ ["selector" true]) */}}
{{- define "kit.labels" -}}
{{- $ctx := .ctx -}}
{{- $labels := dict "app.kubernetes.io/name" (include "kit.name" $ctx) "app.kubernetes.io/instance" $ctx.Release.Name -}}
{{- if not .selector -}}
{{- $_ := set $labels "app.kubernetes.io/managed-by" $ctx.Release.Service -}}
{{- $_ := set $labels "helm.sh/chart" (printf "%s-%s" $ctx.Chart.Name ($ctx.Chart.Version | replace "+" "_")) -}}
{{- with $ctx.Chart.AppVersion }}{{ $_ := set $labels "app.kubernetes.io/version" . }}{{ end -}}
{{- end -}}
{{- $extra := include "kit.render" (dict "value" (.extra | default dict) "ctx" $ctx) | fromYaml -}}
{{- toYaml (mergeOverwrite $labels $extra) -}}
{{- end -}}
