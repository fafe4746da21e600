{{- define "validation.validate.architecture" -}}
{{- if not (has .Values.architecture (list "standalone" "replication" "external")) -}}
validation: architecture
    Invalid architecture {{ .Values.architecture | quote }}: use "standalone", "replication" or "external".
{{- end -}}
{{- end -}}

{{- define "validation.validate.replicas" -}}
{{- if and (eq .Values.architecture "standalone") (gt (int .Values.replicaCount) 1) -}}
validation: replicaCount
    A standalone architecture runs one replica (replicaCount={{ .Values.replicaCount }}).
{{- end -}}
{{- end -}}

{{- define "validation.validate.auth" -}}
{{- if and .Values.auth.enabled (not .Values.auth.password) (not .Values.auth.existingSecret) -}}
validation: auth
    Set auth.password or auth.existingSecret.
{{- end -}}
{{- end -}}

{{- define "validation.validate" -}}
{{- $messages := list -}}
{{- range $check := list "architecture" "replicas" "auth" -}}
{{- $messages = append $messages (include (printf "validation.validate.%s" $check) $) -}}
{{- end -}}
{{- $messages = without $messages "" -}}
{{- $message := join "\n" $messages -}}
{{- if $message -}}
{{- printf "\nVALUES VALIDATION:\n%s" $message | fail -}}
{{- end -}}
{{- end -}}

{{- define "validation.tls.cert" -}}
{{- required "tls.certFilename is required when tls.enabled is true" .Values.tls.certFilename -}}
{{- end -}}
