{{ define "sub.label" }}{{ .Chart.Name }}-{{ .Values.color }}{{ end }}
