// Templates shaped like the ones platform teams write for the operator:
// manifests built from .parameters and .instance, ranges over lists,
// toJson of parameters, and the usual Sprig idioms.

import { group } from './case.ts'
import type { Case } from './case.ts'

const instance = { name: 'team-a-web', namespace: 'team-a', labels: { team: 'a', tier: 'frontend', 'app.kubernetes.io/part-of': 'shop' } }

const web = {
  instance,
  parameters: {
    image: 'nginx',
    tag: '1.25.3',
    replicas: '3',
    port: 8080,
    env: { LOG_LEVEL: 'debug', FEATURE_X: 'true', EMPTY: '' },
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
    hosts: ['a.example.com', 'b.example.com'],
    allowedNamespaces: ['ingress-nginx', 'monitoring'],
    subjects: [
      { kind: 'Group', name: 'team-a-admins' },
      { kind: 'User', name: 'alice@example.com' },
      { kind: 'ServiceAccount', name: 'ci', namespace: 'ci-system' },
    ],
    config: { 'app.yaml': 'server:\n  port: 8080\n', 'feature.json': '{"x":true}' },
    annotations: null,
    debug: false,
    cidrs: ['10.0.0.0/8', '192.168.0.0/16'],
  },
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .instance.name }}
  namespace: {{ .instance.namespace }}
  labels:
    app.kubernetes.io/name: {{ .instance.name | quote }}
{{- range $k, $v := .instance.labels }}
    {{ $k }}: {{ $v | quote }}
{{- end }}
{{- with .parameters.annotations }}
  annotations:
{{ toJson . | indent 4 }}
{{- end }}
spec:
  replicas: {{ .parameters.replicas | int }}
  selector:
    matchLabels:
      app: {{ .instance.name }}
  template:
    metadata:
      labels:
        app: {{ .instance.name }}
      annotations:
        checksum/config: {{ .parameters.config | toJson | sha256sum }}
    spec:
      containers:
        - name: web
          image: "{{ .parameters.image }}:{{ .parameters.tag | default "latest" }}"
          ports:
            - containerPort: {{ .parameters.port }}
          env:
{{- range $k, $v := .parameters.env }}
            - name: {{ $k }}
              value: {{ $v | quote }}
{{- end }}
          resources: {{ toJson .parameters.resources }}
{{- if .parameters.debug }}
          args: ["--debug"]
{{- end }}
`

const service = `apiVersion: v1
kind: Service
metadata:
  name: {{ .instance.name }}
  labels: {{- toJson .instance.labels | nindent 4 }}
spec:
  type: {{ .parameters.serviceType | default "ClusterIP" }}
  selector:
    app: {{ .instance.name }}
  ports:
    - name: http
      port: 80
      targetPort: {{ .parameters.port }}
      protocol: TCP
`

const configMap = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ printf "%s-config" .instance.name | trunc 63 | trimSuffix "-" }}
data:
{{- range $file, $body := .parameters.config }}
  {{ $file }}: |
{{ $body | indent 4 }}
{{- end }}
  hosts: {{ join "," .parameters.hosts | quote }}
  count: {{ len .parameters.hosts | quote }}
`

const networkPolicy = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ .instance.name }}-allow
spec:
  podSelector:
    matchLabels:
      app: {{ .instance.name }}
  policyTypes: [Ingress]
  ingress:
    - from:
{{- range .parameters.allowedNamespaces }}
        - namespaceSelector:
            matchLabels:
              kubernetes.io/metadata.name: {{ . }}
{{- end }}
{{- range $i, $cidr := .parameters.cidrs }}
        - ipBlock:
            cidr: {{ $cidr }}
{{- end }}
      ports:
        - port: {{ .parameters.port }}
`

const roleBinding = `{{- $ns := .instance.namespace -}}
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ .instance.name }}-edit
  namespace: {{ $ns }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: edit
subjects:
{{- range .parameters.subjects }}
  - kind: {{ .kind }}
    name: {{ .name | quote }}
{{- if eq .kind "ServiceAccount" }}
    namespace: {{ .namespace | default $ns }}
{{- else }}
    apiGroup: rbac.authorization.k8s.io
{{- end }}
{{- end }}
`

const multiDoc = `{{- range $i, $h := .parameters.hosts }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ $.instance.name }}-{{ $i }}
  annotations:
    host-hash: {{ $h | sha1sum | trunc 8 }}
spec:
  rules:
    - host: {{ $h }}
{{- end }}
`

const secret = `apiVersion: v1
kind: Secret
metadata:
  name: {{ .instance.name }}-creds
type: Opaque
data:
  username: {{ "admin" | b64enc }}
  config.json: {{ dict "hosts" .parameters.hosts "replicas" (.parameters.replicas | int) | toJson | b64enc }}
stringData:
  url: {{ printf "https://%s:%d/" (first .parameters.hosts) (int .parameters.port) | quote }}
`

const params = `{{- $p := .parameters -}}
# generated for {{ .instance.namespace }}/{{ .instance.name }}
params: {{ toJson $p }}
pretty:
{{ toPrettyJson $p.resources | indent 2 }}
keys: {{ keys $p | sortAlpha | join "," }}
image: {{ printf "%s:%s" $p.image $p.tag | quote }}
{{- if semverCompare ">=1.25.0" $p.tag }}
modern: true
{{- end }}
`

const quota = `apiVersion: v1
kind: ResourceQuota
metadata:
  name: {{ .instance.name | lower | replace "_" "-" }}
spec:
  hard:
    pods: {{ mul (.parameters.replicas | int) 2 | quote }}
    requests.cpu: {{ printf "%dm" (mul (int .parameters.replicas) 100) }}
    limits.memory: {{ .parameters.resources.limits.memory }}
`

const hpa = `{{- $min := .parameters.replicas | int -}}
{{- $max := max (mul $min 3) 10 -}}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ .instance.name }}
spec:
  minReplicas: {{ $min }}
  maxReplicas: {{ $max }}
  metrics:
{{- range $r, $v := dict "cpu" 70 "memory" 80 }}
    - type: Resource
      resource:
        name: {{ $r }}
        target: {type: Utilization, averageUtilization: {{ $v }}}
{{- end }}
`

export const k8sCases: Case[] = [
  ...group('k8s', [
    ['deployment', deployment, web],
    [
      'deployment-annotations',
      deployment,
      { ...web, parameters: { ...web.parameters, annotations: { 'a/b': 'c' }, debug: true, tag: '' } },
    ],
    ['service', service, web],
    ['configmap', configMap, web],
    ['networkpolicy', networkPolicy, web],
    ['networkpolicy-empty', networkPolicy, { ...web, parameters: { ...web.parameters, allowedNamespaces: [], cidrs: null } }],
    ['rolebinding', roleBinding, web],
    ['multi-doc-ingress', multiDoc, web],
    ['secret', secret, web],
    ['params-json', params, web],
    ['quota', quota, web],
    ['hpa', hpa, web],
    ['missing-parameter', '{{ .parameters.nope }}', web],
    ['missing-parameter-default', '{{ .parameters.nope | default "x" }}', web],
    ['missing-parameter-hasKey', '{{ if hasKey .parameters "nope" }}{{ .parameters.nope }}{{ else }}absent{{ end }}', web],
    ['missing-parameter-index', '[{{ index .parameters "nope" }}]', web],
    ['missing-parameter-dig', '{{ dig "resources" "limits" "cpu" "500m" .parameters }}', web],
    ['replicas-string-arith', '{{ add .parameters.replicas 1 }}', web],
    ['port-float-printf', '{{ printf "%d" .parameters.port }} {{ printf "%v" .parameters.port }} {{ .parameters.port }}', web],
    ['labels-toJson', '{{ .instance.labels | toJson }}', web],
    ['labels-range-sorted', '{{ range $k, $v := .instance.labels }}{{ $k }}={{ $v }},{{ end }}', web],
    ['fromJson-param', '{{ $c := fromJson (index .parameters.config "feature.json") }}{{ $c.x }}', web],
    ['mustFromJson-list-param', '{{ range mustFromJson "[\\"x\\",\\"y\\"]" }}- {{ . }}\n{{ end }}', web],
    ['name-truncation', '{{ printf "%s-%s" .instance.name (repeat 60 "x") | trunc 63 | trimSuffix "-" }}', web],
    ['image-split', '{{ $parts := splitList ":" "registry.io/team/app:1.2.3" }}{{ last $parts }} {{ initial $parts | join ":" }}', web],
    [
      'env-list-from-map',
      'env:{{ range $k, $v := .parameters.env }}{{ if $v }}\n  - {name: {{ $k }}, value: {{ $v | quote }}}{{ end }}{{ end }}',
      web,
    ],
    ['subjects-filter', '{{ range .parameters.subjects }}{{ if ne .kind "User" }}{{ .name }} {{ end }}{{ end }}', web],
    ['subjects-missing-namespace', '{{ range .parameters.subjects }}{{ .namespace }}{{ end }}', web],
    ['ternary-mode', 'mode: {{ ternary "strict" "revert" .parameters.debug }}', web],
    ['yaml-list-of-hosts', 'hosts:\n{{- range .parameters.hosts }}\n  - {{ . | quote }}\n{{- end }}', web],
    ['nindent-resources', 'resources:{{ toPrettyJson .parameters.resources | nindent 2 }}', web],
    ['instance-ref', '{{ printf "%s/%s" .instance.namespace .instance.name }}', web],
    ['uuid-not-used', '{{ .instance.name | sha256sum | substr 0 8 }}', web],
  ]),
]
