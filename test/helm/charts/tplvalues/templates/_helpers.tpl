{{- define "tplvalues.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- tpl .Values.fullnameOverride . | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{- /* A string or a structure from values, as YAML, through tpl when it holds a template; "within" runs it with another dot. */}}
{{- define "tplvalues.render" -}}
{{- $text := ternary .value (toYaml .value) (kindIs "string" .value) }}
{{- if not (contains "{{" $text) }}
{{- $text }}
{{- else if .within }}
{{- tpl (printf "{{- with $.Within }}%s{{- end }}" $text) (merge (dict "Within" .within) .context) }}
{{- else }}
{{- tpl $text .context }}
{{- end }}
{{- end -}}
