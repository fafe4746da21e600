{{- define "capidioms.kubeVersion" -}}
{{- default .Capabilities.KubeVersion.Version .Values.kubeVersionOverride -}}
{{- end -}}

{{- define "capidioms.pdb.apiVersion" -}}
{{- if semverCompare "<1.21-0" (include "capidioms.kubeVersion" .) -}}
policy/v1beta1
{{- else -}}
policy/v1
{{- end -}}
{{- end -}}

{{- define "capidioms.ingress.apiVersion" -}}
{{- if and (.Capabilities.APIVersions.Has "networking.k8s.io/v1") (semverCompare ">= 1.19-0" (include "capidioms.kubeVersion" .)) -}}
networking.k8s.io/v1
{{- else if .Capabilities.APIVersions.Has "networking.k8s.io/v1beta1" -}}
networking.k8s.io/v1beta1
{{- else -}}
extensions/v1beta1
{{- end -}}
{{- end -}}

{{- define "capidioms.hpa.apiVersion" -}}
{{- if .Capabilities.APIVersions.Has "autoscaling/v2" -}}
autoscaling/v2
{{- else -}}
autoscaling/v2beta2
{{- end -}}
{{- end -}}

{{/* Minor may carry a vendor suffix ("28+" on GKE); charts strip it before comparing. */}}
{{- define "capidioms.minor" -}}
{{- .Capabilities.KubeVersion.Minor | trimSuffix "+" | int -}}
{{- end -}}
