{{ define "shared" }}from-root-a{{ end }}{{ define "empty" }}{{ end }}
