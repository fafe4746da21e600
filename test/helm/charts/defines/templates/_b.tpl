{{ define "shared" }}from-root-b{{ end }}{{ define "empty" }}not-empty{{ end }}
