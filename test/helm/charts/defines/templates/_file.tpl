whole file {{ .Chart.Name }}
