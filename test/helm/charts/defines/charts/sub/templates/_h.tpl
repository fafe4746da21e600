{{ define "shared" }}from-sub{{ end }}{{ define "sub.only" }}sub-only{{ end }}
