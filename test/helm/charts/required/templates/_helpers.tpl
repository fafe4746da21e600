{{- define "required.check" -}}
{{ required "image.repository is required" .Values.image.repository }}
{{- end }}
