// Manifests written the way Helm charts compute names, lengths and
// indentation: trunc to 63 characters minus a suffix, indent by a computed
// level, replicas and ports from parameters, percentages. Go's integer types
// decide whether they render: a length is an int, arithmetic gives an int64
// (which trunc and indent reject), JSON numbers are float64 (which int
// converts), so each idiom appears in the form that fails and the one that
// works.

import { group } from './case.ts'
import type { Case } from './case.ts'

const P = 'helmstyle'

const values = {
  name: 'payments-api-with-a-rather-long-release-name-that-needs-cutting',
  suffix: '-metrics',
  replicas: 3,
  port: 8080,
  level: 2,
  maxUnavailable: 25,
  labels: { app: 'payments', tier: 'backend', 'app.kubernetes.io/managed-by': 'template-sync' },
  hosts: ['pay.example.com', 'api.pay.example.com', 'x.example.org'],
  env: [
    { name: 'LOG_LEVEL', value: 'info' },
    { name: 'REGION', value: 'eu-west-1' },
  ],
  tag: 'v1.27.3',
  cpu: 0.25,
  memoryMi: 512,
  config: 'server:\n  port: 8080\nlog:\n  level: info',
}

const fullnameInt64 = `{{- $max := sub 63 (len .suffix) -}}
name: {{ trunc $max .name }}{{ .suffix }}`

const fullnameInt = `{{- $max := sub 63 (len .suffix) | int -}}
name: {{ trunc $max .name | trimSuffix "-" }}{{ .suffix }}`

const fullnameLen = `{{- $name := printf "%s%s" .name .suffix -}}
{{- if gt (len $name) 63 }}
name: {{ $name | trunc 63 | trimSuffix "-" }}
truncated: {{ sub (len $name) 63 }}
{{- else }}
name: {{ $name }}
{{- end }}`

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .name | trunc 63 | trimSuffix "-" }}
  labels:
{{- range $k, $v := .labels }}
    {{ $k }}: {{ $v | quote }}
{{- end }}
spec:
  replicas: {{ int .replicas }}
  strategy:
    rollingUpdate:
      maxUnavailable: {{ .maxUnavailable | int }}%
      maxSurge: {{ div (mul (int .replicas) (int .maxUnavailable)) 100 | add1 }}
  template:
    spec:
      containers:
        - name: app
          image: "registry.example.com/pay:{{ .tag | trimPrefix "v" }}"
          ports:
            - containerPort: {{ .port | int }}
          env:
{{- range $i, $e := .env }}
            - name: {{ $e.name }}
              value: {{ $e.value | quote }}
            - name: {{ $e.name }}_INDEX
              value: {{ add $i 1 | quote }}
{{- end }}
          resources:
            requests:
              cpu: {{ mulf .cpu 1000 | int }}m
              memory: {{ int .memoryMi }}Mi`

const configIndentLevel = `data:
  config.yaml: |
{{ .config | indent (mul (int .level) 2) }}`

const configIndentInt = `data:
  config.yaml: |
{{ .config | indent (mul (int .level) 2 | int) }}`

const labelsNindent = `spec:
  template:
    metadata:
      labels:
{{- range $k, $v := .labels }}{{ printf "%s: %s" $k ($v | quote) | nindent (len "        ") }}{{ end }}`

const hostsComputed = `{{- $n := len .hosts -}}
hosts: {{ $n }}
{{- range $i, $h := .hosts }}
  - host: {{ $h }}
    last: {{ eq $i (sub $n 1) }}
    short: {{ trunc (sub (len $h) 12) $h }}
{{- end }}`

const hostsComputedInt = `{{- $n := len .hosts -}}
hosts: {{ $n }}
{{- range $i, $h := .hosts }}
  - host: {{ $h }}
    last: {{ eq $i (sub $n 1) }}
    short: {{ trunc (sub (len $h) 12 | int) $h }}
    tail: {{ substr (max 0 (sub (len $h) 11) | int) (len $h) $h }}
{{- end }}`

const portsFromJSON = `ports:
  - port: {{ .port }}
    targetPort: {{ add .port 1 }}
    name: http-{{ .port }}
  - port: {{ printf "%d" .port }}`

const portsFromJSONInt = `ports:
  - port: {{ .port }}
    targetPort: {{ add .port 1 }}
    name: http-{{ int .port }}
  - port: {{ printf "%d" (int .port) }}
  - same: {{ eq (add .port 0) (int .port) }}
  - deep: {{ deepEqual (add .port 0) (int .port) }}
  - listed: {{ has (int .port) (list 8080 8443) }} {{ has (add .port 0) (list 8080 8443) }}`

const replicasCompare = `{{- if eq .replicas 1 }}single{{ end }}`

const replicasCompareInt = `{{- if eq (int .replicas) 1 }}single{{ else if gt (int .replicas) 2 }}ha ({{ .replicas }}){{ end }}
pdb: {{ if ge (add .replicas 0) 2 }}minAvailable: {{ sub (int .replicas) 1 }}{{ end }}`

const versionGate = `{{- $v := semver .tag -}}
{{- if and (eq $v.Major 1) (ge $v.Minor 25) }}
apiVersion: policy/v1
{{- else }}
apiVersion: policy/v1beta1
{{- end }}
kind: PodDisruptionBudget
metadata:
  annotations:
    next-minor: {{ $v.IncMinor }}
    next-patch: {{ $v.IncPatch }}
    original: {{ $v.Original }}
    major-type: {{ typeOf $v.Major }}`

const versionGateTrunc = `image: {{ trunc (semver .tag).Minor "0123456789abcdefghijklmnopqrstuvwxyz" }}`

const checksum = `annotations:
  checksum/config: {{ .config | sha256sum | trunc 16 }}
  checksum/len: {{ len (.config | sha256sum) }}
  lines: {{ len (splitList "\\n" .config) }}
  lines-type: {{ typeOf (len (splitList "\\n" .config)) }}`

const byteIndex = `first: {{ index .tag 0 }} {{ printf "%c" (index .tag 0) }} {{ typeOf (index .tag 0) }}
isV: {{ eq (index .tag 0) 118 }} {{ eq (printf "%c" (index .tag 0)) "v" }}`

const byteIndexTrunc = `{{ trunc (index .tag 1) .name }}`

const cronFromNow = `{{- $t := toDate "2006-01-02T15:04:05Z07:00" "2024-03-10T07:30:00Z" -}}
schedule: "{{ $t.Minute }} {{ $t.Hour }} * * {{ $t.Weekday | int }}"
weekday: {{ $t.Weekday }}
stamp: {{ $t.Unix }} {{ typeOf $t.Unix }}
until: {{ ($t.AddDate 0 1 0).Format "2006-01-02" }}
ttl: {{ duration (sub ($t.AddDate 0 0 1).Unix $t.Unix) }}`

export const helmStyleCases: Case[] = group(P, [
  ['fullname-int64-trunc', fullnameInt64, values],
  ['fullname-int-trunc', fullnameInt, values],
  ['fullname-len-compare', fullnameLen, values],
  ['deployment', deployment, values],
  ['config-indent-int64', configIndentLevel, values],
  ['config-indent-int', configIndentInt, values],
  ['labels-nindent-len', labelsNindent, values],
  ['hosts-trunc-int64', hostsComputed, values],
  ['hosts-trunc-int', hostsComputedInt, values],
  ['ports-json-printf-d', portsFromJSON, values],
  ['ports-json-int', portsFromJSONInt, values],
  ['replicas-eq-float', replicasCompare, values],
  ['replicas-eq-int', replicasCompareInt, values],
  ['version-gate', versionGate, values],
  ['version-trunc-uint64', versionGateTrunc, values],
  ['checksum-lengths', checksum, values],
  ['byte-index', byteIndex, values],
  ['byte-index-trunc', byteIndexTrunc, values],
  ['cron-from-time', cronFromNow, values],
  ['indent-len', '{{ $pad := len "    " }}{{ indent $pad "a\\nb" }}|{{ nindent (len .hosts) "x" }}', values],
  ['indent-add', '{{ indent (add 2 2) "a" }}', values],
  ['indent-json', '{{ indent .level "a" }}', values],
  ['indent-json-int', '{{ indent (int .level) "a" }}', values],
  ['repeat-rule', '{{ repeat (len .name) "=" | len }} {{ repeat (int (div (len .name) 2)) "-" | len }}', values],
  ['repeat-rule-int64', '{{ repeat (div (len .name) 2) "-" }}', values],
  ['substr-name', '{{ substr 0 (len .suffix) .name }} {{ substr (len "payments-") (len "payments-api") .name }}', values],
  ['substr-name-int64', '{{ substr 0 (add (len .suffix) 1) .name }}', values],
  ['until-len', '{{ range until (len .hosts) }}{{ . }}:{{ index $.hosts . }} {{ end }}', values],
  ['until-int64', '{{ range until (sub (len .hosts) 1) }}{{ . }}{{ end }}', values],
  ['range-int64', '{{ range (sub (len .hosts) 1) }}{{ . }} {{ typeOf . }} {{ end }}', values],
  ['range-count', '{{ range $i := int .replicas }}pod-{{ $i }} {{ end }}', values],
  ['percent', '{{ div (mul 100 (len .hosts)) 4 }}% {{ typeOf (div (mul 100 (len .hosts)) 4) }}', values],
  ['plural-hosts', '{{ len .hosts }} {{ plural "host" "hosts" (len .hosts) }}', values],
  ['plural-hosts-int64', '{{ plural "host" "hosts" (sub (len .hosts) 2) }}', values],
  [
    'wrap-comment',
    '# {{ wrap (sub 40 (len "# ") | int) "a fairly long comment that has to wrap on a narrow line" | replace "\\n" "\\n# " }}',
    values,
  ],
  ['chunk-hosts', '{{ range chunk 2 .hosts }}{{ join "," . }};{{ end }}', values],
  ['chunk-hosts-int64', '{{ chunk (add 1 1) .hosts }}', values],
  ['duration-timeout', 'timeout: {{ duration (mul 5 60) }} {{ duration "300" }} {{ duration 300 }}', values],
  ['duration-round', 'age: {{ durationRound (mul 36 3600000000000) }} {{ durationRound "36h" }} {{ durationRound 3600 }}', values],
  [
    'has-port',
    '{{ has 8080 (list 8080 8443) }} {{ has (int .port) (list 8080 8443) }} {{ has .port (list 8080 8443) }} {{ has (add 8080 0) (list 8080 8443) }}',
    values,
  ],
  ['uniq-mixed', '{{ uniq (list 1 (add 1 0) (int64 1) 1.0) }}', values],
  ['without-int64', '{{ without (list 1 2 3) (add 1 1) }} {{ without (list 1 2 3) 2 }}', values],
  ['printf-width-int64', '[{{ printf "%*s" (add 6 0) "ab" }}] [{{ printf "%-*s|" (len "abcd") "ab" }}]', values],
  ['toJson-int-kinds', '{{ toJson (dict "a" (len "ab") "b" (add 1 1) "c" (index "x" 0) "d" .port) }}', values],
])
