{{/* Chart name, truncated to leave room for suffixes such as "-reconciler". */}}
{{- define "template-sync.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 40 | trimSuffix "-" }}
{{- end }}

{{/* Prefix of every resource name: the release name, plus the chart name unless the release name already contains it. */}}
{{- define "template-sync.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "template-sync.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "template-sync.selectorLabels" -}}
app.kubernetes.io/name: {{ include "template-sync.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "template-sync.labels" -}}
helm.sh/chart: {{ include "template-sync.chart" . }}
{{ include "template-sync.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: template-sync
{{- end }}

{{/* Names shared between templates (and with the processes' flags). */}}
{{- define "template-sync.webhookName" -}}{{ include "template-sync.fullname" . }}-webhook{{- end }}
{{- define "template-sync.reconcilerName" -}}{{ include "template-sync.fullname" . }}-reconciler{{- end }}
{{- define "template-sync.webhookConfigurationName" -}}{{ include "template-sync.fullname" . }}{{- end }}
{{- define "template-sync.tlsSecretName" -}}
{{- if and (not .Values.certManager.enabled) .Values.webhook.tls.existingSecret -}}
{{ .Values.webhook.tls.existingSecret }}
{{- else -}}
{{ include "template-sync.fullname" . }}-webhook-tls
{{- end -}}
{{- end }}
{{- define "template-sync.leaseName" -}}{{ include "template-sync.fullname" . }}-reconciler{{- end }}

{{/* The webhook issues and rotates its own certificate: neither cert-manager nor a user Secret. */}}
{{- define "template-sync.selfManagedCerts" -}}
{{- if and (not .Values.certManager.enabled) (not .Values.webhook.tls.existingSecret) }}true{{ end }}
{{- end }}

{{/* The reconciler's username as the API server sees it; the webhook never judges its writes. */}}
{{- define "template-sync.reconcilerUsername" -}}
system:serviceaccount:{{ .Release.Namespace }}:{{ include "template-sync.reconcilerName" . }}
{{- end }}

{{/* Usernames exempt from judgement: the reconciler plus extras, as a JSON list for CEL and flags. */}}
{{- define "template-sync.operatorUsernames" -}}
{{- $users := list (include "template-sync.reconcilerUsername" .) }}
{{- range .Values.webhook.extraOperatorUsernames }}{{ $users = append $users . }}{{ end }}
{{- $users | uniq | toJson }}
{{- end }}

{{- define "template-sync.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end }}

{{/* Pod spec parts shared by both Deployments. Call with (dict "root" $ "component" "webhook" "values" .Values.webhook). */}}
{{- define "template-sync.podScheduling" -}}
{{- $sel := dict "app.kubernetes.io/name" (include "template-sync.name" .root) "app.kubernetes.io/instance" .root.Release.Name "app.kubernetes.io/component" .component }}
{{- with .values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
affinity:
{{- if .values.affinity }}
  {{- toYaml .values.affinity | nindent 2 }}
{{- else }}
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              {{- toYaml $sel | nindent 14 }}
{{- end }}
{{- end }}

{{/* CEL: the stored object carries the instance-uid label and the given sync-mode. oldObject is null for CREATE and CONNECT; object is null for DELETE, so only oldObject is read. */}}
{{- define "template-sync.celStoredMode" -}}
oldObject != null && has(oldObject.metadata) && has(oldObject.metadata.labels) && 'templates.v2.stakater.com/instance-uid' in oldObject.metadata.labels && 'templates.v2.stakater.com/sync-mode' in oldObject.metadata.labels && oldObject.metadata.labels['templates.v2.stakater.com/sync-mode'] == '{{ . }}'
{{- end }}

{{/* CEL: the request does not come from an identity the webhook always allows. The garbage collector's DELETEs are judged (docs/security.md). */}}
{{- define "template-sync.celNotExempt" -}}
!(request.userInfo.username in {{ include "template-sync.operatorUsernames" . | fromJsonArray | concat (list "system:serviceaccount:kube-system:namespace-controller") | toJson | replace "\"" "'" }}) && !(request.userInfo.username == 'system:serviceaccount:kube-system:generic-garbage-collector' && request.operation != 'DELETE')
{{- end }}

{{/* clientConfig of every webhook entry. */}}
{{- define "template-sync.clientConfig" -}}
{{- if .Values.webhook.url }}
url: {{ .Values.webhook.url | quote }}
{{- else }}
service:
  name: {{ include "template-sync.webhookName" . }}
  namespace: {{ .Release.Namespace }}
  path: /validate
  port: 443
{{- end }}
{{- with .Values.webhook.caBundle }}
caBundle: {{ . }}
{{- end }}
{{- end }}

{{/* A memory quantity ("256Mi", "1Gi", "512M", "268435456") in MiB, as a float. Empty for anything else. */}}
{{- define "template-sync.memoryMiB" -}}
{{- $q := toString . -}}
{{- $num := regexFind "^[0-9]+(\\.[0-9]+)?" $q -}}
{{- $unit := trimPrefix $num $q -}}
{{- $factors := dict "" 0.00000095367431640625 "Ki" 0.0009765625 "Mi" 1.0 "Gi" 1024.0 "Ti" 1048576.0 "k" 0.00095367431640625 "M" 0.95367431640625 "G" 953.67431640625 "T" 953674.31640625 -}}
{{- if and $num (hasKey $factors $unit) -}}
{{- mulf (float64 $num) (get $factors $unit) -}}
{{- end -}}
{{- end }}

{{/* --max-old-space-size for the webhook: webhook.heapPercent of its memory limit; empty without a limit. */}}
{{- define "template-sync.webhookHeapFlag" -}}
{{- $limit := dig "limits" "memory" "" .Values.webhook.resources -}}
{{- if $limit -}}
{{- $mib := include "template-sync.memoryMiB" $limit -}}
{{- if not $mib -}}
{{- fail (printf "webhook.resources.limits.memory %q is not a memory quantity (e.g. 256Mi)" (toString $limit)) -}}
{{- end -}}
{{- $heap := floor (mulf (float64 $mib) .Values.webhook.heapPercent 0.01) | int -}}
{{- if lt $heap 32 -}}
{{- fail (printf "webhook.resources.limits.memory %q leaves a heap of %d MiB; the webhook needs at least 32" (toString $limit) $heap) -}}
{{- end -}}
--max-old-space-size={{ $heap }}
{{- end -}}
{{- end }}

{{/* NODE_OPTIONS of the webhook: the heap limit first, so that webhook.nodeOptions can still override it. */}}
{{- define "template-sync.webhookNodeOptions" -}}
{{- list (include "template-sync.webhookHeapFlag" .) .Values.webhook.nodeOptions | compact | join " " -}}
{{- end }}

{{- define "template-sync.webhookClientCaName" -}}{{ include "template-sync.webhookName" . }}-client-ca{{- end }}

{{/* The cluster's components (writers.components plus writers.extraComponents) as process flags, for both Deployments. */}}
{{- define "template-sync.componentArgs" -}}
{{- $c := .Values.writers.components }}
{{- $x := .Values.writers.extraComponents }}
- --component-users
- {{ concat $c.users $x.users | uniq | join "," | quote }}
- --component-user-prefixes
- {{ concat $c.userPrefixes $x.userPrefixes | uniq | join "," | quote }}
- --component-groups
- {{ concat $c.groups $x.groups | uniq | join "," | quote }}
- --component-managers
- {{ concat $c.managers $x.managers | uniq | join "," | quote }}
{{- end }}

{{/* The job label each process is scraped under: set by the chart's ServiceMonitor and PodMonitor, read by the alerts. */}}
{{- define "template-sync.webhookJob" -}}{{ include "template-sync.webhookName" . }}{{- end }}
{{- define "template-sync.reconcilerJob" -}}{{ include "template-sync.reconcilerName" . }}{{- end }}

{{/* Relabelling shared by the ServiceMonitor and the PodMonitor: the job is "<fullname>-<component>", whatever the scraping object is called. */}}
{{- define "template-sync.metricsRelabelings" -}}
- sourceLabels: [__meta_kubernetes_pod_label_app_kubernetes_io_component]
  targetLabel: job
  replacement: {{ include "template-sync.fullname" . }}-$1
{{- end }}

{{/* One alerting rule. Call with a dict: name, expr, for (optional), severity, summary, description, extra (labels), runbookUrl. */}}
{{- define "template-sync.alert" -}}
- alert: {{ .name }}
  expr: |-
    {{- .expr | nindent 4 }}
  {{- with .for }}
  for: {{ . }}
  {{- end }}
  labels:
    severity: {{ .severity }}
    {{- with .extra }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  annotations:
    summary: {{ .summary | quote }}
    description: {{ printf "%s Runbook: docs/observability.md#%s" .description (lower .name) | quote }}
    {{- with .runbookUrl }}
    runbook_url: {{ printf "%s#%s" . (lower $.name) | quote }}
    {{- end }}
{{- end }}
