{{- define "common.configmap" -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .name }}
  labels:
    chart: {{ .root.Chart.Name }}
    release: {{ .root.Release.Name }}
{{- end }}
