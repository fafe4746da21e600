{{- /* Each helper takes the chart's top-level object, or a dict naming it "ctx". */}}
{{- define "kit.name" -}}
{{- $ctx := .ctx | default . -}}
{{- $ctx.Values.nameOverride | default $ctx.Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "kit.fullname" -}}
{{- $ctx := .ctx | default . -}}
{{- with $ctx.Values.fullnameOverride -}}
{{- . | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "kit.name" $ctx -}}
{{- ternary $ctx.Release.Name (printf "%s-%s" $ctx.Release.Name $name) (contains $name $ctx.Release.Name) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
