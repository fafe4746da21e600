{{- define "errors.nil" -}}
{{ .Values.a.b }}
{{- end -}}
{{- define "errors.index" -}}
{{ index .Values.list 5 }}
{{- end -}}
