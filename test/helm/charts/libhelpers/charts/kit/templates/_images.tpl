{{- /* "kit.image" (dict "image" .Values.image "global" .Values.global "ctx" $) */}}
{{- define "kit.image" -}}
{{- $registry := coalesce (dig "imageRegistry" "" (.global | default dict)) .image.registry -}}
{{- $ref := .image.repository -}}
{{- if $registry }}{{ $ref = printf "%s/%s" $registry $ref }}{{ end -}}
{{- if .image.digest -}}
{{- printf "%s@%s" $ref .image.digest -}}
{{- else -}}
{{- printf "%s:%s" $ref (.image.tag | default .ctx.Chart.AppVersion | toString) -}}
{{- end -}}
{{- end -}}

{{- define "kit.pullSecrets" -}}
{{- $names := list -}}
{{- range concat (dig "imagePullSecrets" list (.ctx.Values.global | default dict)) (.secrets | default list) -}}
{{- $names = append $names (include "kit.render" (dict "value" (kindIs "map" . | ternary (get . "name") .) "ctx" $.ctx)) -}}
{{- end -}}
{{- with $names | uniq -}}
imagePullSecrets:
{{- range . }}
  - name: {{ . }}
{{- end -}}
{{- end -}}
{{- end -}}
