{{ define "x" }}{{ end }}
