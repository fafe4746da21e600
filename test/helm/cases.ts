// The differential corpus: each case is a chart of test/helm/charts, user
// values and release options, rendered by the real helm (`helm template
// --include-crds`, both majors unless a case says otherwise) and by
// renderChart. test/helm/generate.ts writes helm's results to
// test/helm/expected; test/unit/helm-render-corpus.test.ts compares.

export interface CorpusCase {
  readonly id: string
  /** A directory under test/helm/charts. */
  readonly chart: string
  readonly values?: Record<string, unknown>
  readonly releaseName?: string
  readonly namespace?: string
  /** Passed as --kube-version (always: the Helm 3 test binary lacks the release build's default). */
  readonly kubeVersion?: string
  /** Added to Helm's default API versions (--api-versions). */
  readonly apiVersions?: readonly string[]
  readonly helm?: readonly ('v3' | 'v4')[]
}

export const DEFAULT_KUBE = 'v1.37.0'

const scaffold = (id: string, values: Record<string, unknown>, extra: Partial<CorpusCase> = {}): CorpusCase => ({
  id: `scaffold-${id}`,
  chart: 'scaffold',
  values,
  ...extra,
})

export const CASES: readonly CorpusCase[] = [
  scaffold('defaults', {}),
  scaffold('release', {}, { releaseName: 'my-release', namespace: 'team-a' }),
  scaffold('long-release', {}, { releaseName: 'a-release-name-that-is-long-enough-to-be-truncated-x' }),
  scaffold('replicas', { replicaCount: 3 }),
  scaffold('image', { image: { repository: 'registry.example.com/app', tag: 'v2.1.0', pullPolicy: 'Always' } }),
  scaffold('pull-secrets', { imagePullSecrets: [{ name: 'regcred' }, { name: 'other' }] }),
  scaffold('name-override', { nameOverride: 'web' }),
  scaffold('fullname-override', { fullnameOverride: 'custom-full-name' }),
  scaffold('release-contains-chart', {}, { releaseName: 'scaffold-prod' }),
  scaffold('no-serviceaccount', { serviceAccount: { create: false } }),
  scaffold('serviceaccount-named', {
    serviceAccount: {
      create: true,
      name: 'robot',
      annotations: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::1:role/x' },
      automount: false,
    },
  }),
  scaffold('pod-annotations', { podAnnotations: { 'prometheus.io/scrape': 'true', 'checksum/config': 'abc' }, podLabels: { team: 'a' } }),
  scaffold('security', {
    podSecurityContext: { fsGroup: 2000 },
    securityContext: { runAsNonRoot: true, runAsUser: 1000, capabilities: { drop: ['ALL'] }, readOnlyRootFilesystem: true },
  }),
  scaffold('service-nodeport', { service: { type: 'NodePort', port: 8080 } }),
  scaffold('ingress', {
    ingress: {
      enabled: true,
      className: 'nginx',
      annotations: { 'kubernetes.io/tls-acme': 'true' },
      hosts: [{ host: 'app.example.com', paths: [{ path: '/', pathType: 'Prefix' }] }],
      tls: [{ secretName: 'app-tls', hosts: ['app.example.com'] }],
    },
  }),
  scaffold('ingress-multi', {
    ingress: {
      enabled: true,
      hosts: [
        {
          host: 'a.example.com',
          paths: [
            { path: '/a', pathType: 'Exact' },
            { path: '/b', pathType: 'Prefix' },
          ],
        },
        { host: 'b.example.com', paths: [{ path: '/', pathType: 'ImplementationSpecific' }] },
      ],
    },
  }),
  scaffold('httproute', {
    httpRoute: {
      enabled: true,
      annotations: { a: 'b' },
      parentRefs: [{ name: 'gw', sectionName: 'https' }],
      hostnames: ['x.example.com'],
      rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/api' } }] }],
    },
  }),
  scaffold('resources', { resources: { limits: { cpu: '100m', memory: '128Mi' }, requests: { cpu: 0.5, memory: '64Mi' } } }),
  scaffold('probes', {
    livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, initialDelaySeconds: 10 },
    readinessProbe: { tcpSocket: { port: 8080 } },
  }),
  scaffold('autoscaling', {
    autoscaling: {
      enabled: true,
      minReplicas: 2,
      maxReplicas: 10,
      targetCPUUtilizationPercentage: 70,
      targetMemoryUtilizationPercentage: 80,
    },
  }),
  scaffold('autoscaling-cpu-only', { autoscaling: { enabled: true, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 50 } }),
  scaffold('volumes', {
    volumes: [{ name: 'data', secret: { secretName: 'mysecret', optional: false } }],
    volumeMounts: [{ name: 'data', mountPath: '/etc/data', readOnly: true }],
  }),
  scaffold('scheduling', {
    nodeSelector: { 'kubernetes.io/os': 'linux', disktype: 'ssd' },
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'app', effect: 'NoSchedule' }],
    affinity: {
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname' } }],
      },
    },
  }),
  scaffold('null-deletes-default', { livenessProbe: null, service: { port: null } }),
  scaffold('numbers', { replicaCount: 1234567, service: { port: 8.5 } }),
  scaffold('everything', {
    replicaCount: 2,
    ingress: { enabled: true },
    autoscaling: { enabled: true },
    serviceAccount: { create: false, name: 'sa' },
    podLabels: { a: 'b' },
  }),
  scaffold('kube-old', {}, { kubeVersion: 'v1.25.3' }),
  scaffold('kube-vendor', {}, { kubeVersion: '1.30.2-eks-1' }),

  { id: 'globals', chart: 'globals' },
  { id: 'globals-user', chart: 'globals', values: { global: { a: 'user', extra: true }, child: { own: 'user' } } },
  { id: 'imports', chart: 'imports' },
  { id: 'imports-override', chart: 'imports', values: { port: 1, data: { port: 2 }, lib: { exports: { data: { host: 'ignored' } } } } },
  { id: 'conditions', chart: 'conditions' },
  {
    id: 'conditions-toggle',
    chart: 'conditions',
    values: { primary: { enabled: false }, replica: { enabled: true }, tags: { caching: true }, metrics: { enabled: true } },
  },
  { id: 'conditions-tags-only', chart: 'conditions', values: { tags: { replication: true, caching: false, fast: true } } },
  { id: 'conditions-global', chart: 'conditions', values: { global: { replicas: true } } },
  { id: 'library', chart: 'library' },
  { id: 'library-root', chart: 'libonly' },
  { id: 'tpl', chart: 'tpl' },
  { id: 'tpl-values', chart: 'tpl', values: { name: 'there', greeting: '{{ upper .Values.name }}' } },
  { id: 'files', chart: 'files' },
  { id: 'required-ok', chart: 'required' },
  { id: 'required-tag', chart: 'required', values: { checkTag: true } },
  { id: 'required-tag-set', chart: 'required', values: { checkTag: true, image: { tag: 'v1' } } },
  { id: 'required-include', chart: 'required', values: { viaInclude: true, image: { repository: null } } },
  { id: 'fail', chart: 'required', values: { doFail: true }, releaseName: 'failing' },
  { id: 'schema-ok', chart: 'schema' },
  { id: 'schema-type', chart: 'schema', values: { replicas: 'three' } },
  { id: 'schema-required', chart: 'schema', values: { name: null } },
  { id: 'schema-enum', chart: 'schema', values: { mode: 'c' } },
  { id: 'schema-subchart', chart: 'schema', values: { strict: { level: 2, extra: true } } },
  { id: 'nulls', chart: 'nulls' },
  {
    id: 'nulls-user',
    chart: 'nulls',
    values: { foo: { a: null, c: 'set' }, top: null, list: null, sub: { x: null, y: 'parent', z: { deep: null } } },
  },
  { id: 'kinds', chart: 'kinds' },
  { id: 'funcs', chart: 'funcs' },
  { id: 'caps', chart: 'caps' },
  {
    id: 'caps-apis',
    chart: 'caps',
    kubeVersion: 'v1.30.2',
    apiVersions: ['monitoring.coreos.com/v1', 'monitoring.coreos.com/v1/ServiceMonitor'],
  },
  { id: 'caps-vendor', chart: 'caps', kubeVersion: '1.28.4-gke.100' },
  { id: 'kubeversion-fails', chart: 'kubeversion' },
  { id: 'objects', chart: 'objects', releaseName: 'obj', namespace: 'objects-ns' },
  { id: 'hooks', chart: 'hooks' },
  { id: 'defines', chart: 'defines' },
  { id: 'error-missing-include', chart: 'errors', values: { mode: 'missing' } },
  { id: 'error-nil-include', chart: 'errors', values: { mode: 'nil' } },
  { id: 'error-index', chart: 'errors', values: { mode: 'index' } },
  { id: 'error-nil-direct', chart: 'errors', values: { mode: 'direct' } },
  { id: 'error-tpl', chart: 'errors', values: { mode: 'tpl' } },
  { id: 'error-tpl-parse', chart: 'errors', values: { mode: 'tplparse' } },
  { id: 'error-bad-yaml', chart: 'errors', values: { mode: 'badyaml' } },
  { id: 'error-chart-field', chart: 'errors', values: { mode: 'chartfield' } },
  { id: 'error-parse', chart: 'parseerror' },
  { id: 'multidoc', chart: 'multidoc' },
  { id: 'v4funcs', chart: 'v4funcs' },
  { id: 'missing-dependency', chart: 'missingdep' },
  { id: 'crds', chart: 'crds', values: { operator: { replicas: 2 } } },
  { id: 'release-name-invalid', chart: 'crds', releaseName: 'Not_Valid' },
  { id: 'types', chart: 'types' },
  { id: 'legacy-requirements', chart: 'legacy' },
  { id: 'legacy-disabled', chart: 'legacy', values: { dep: { enabled: false } } },
  { id: 'unlisted-subchart', chart: 'unlisted', values: { extra: { y: 2 } } },
  { id: 'nested', chart: 'nested' },
  { id: 'nested-toggle', chart: 'nested', values: { mid: { leaf: { enabled: false }, leafB: { enabled: true } }, global: { env: null } } },
  { id: 'alias-nested', chart: 'aliasnested' },
  { id: 'yaml', chart: 'yaml' },
  { id: 'yaml-user', chart: 'yaml', values: { deep: { level1: { extra: 'x'.repeat(100) } }, added: [{ a: 1, b: [2, 3] }] } },

  // Idioms of popular charts (issue 24): values holding templates, copies of
  // .Values, API selection by .Capabilities, lookup guards, flow-style YAML,
  // nested lists, library helpers called with dicts, validation, generated secrets.
  { id: 'tplvalues', chart: 'tplvalues' },
  {
    id: 'tplvalues-snippets',
    chart: 'tplvalues',
    values: {
      config: {
        filters: '[FILTER]\n    Name kubernetes\n    Match {{ .Chart.Name }}.*\n',
        outputs: '  \n',
        customParsers: '{{/* none */}}',
      },
      fullnameOverride: '{{ .Release.Name }}-logs',
      extraObjects: [
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: '{{ .Release.Name }}-extra' }, stringData: { port: '{{ .Values.port }}' } },
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-raw\n',
      ],
    },
    releaseName: 'logs',
    namespace: 'observability',
  },
  {
    id: 'tplvalues-labels',
    chart: 'tplvalues',
    values: {
      commonLabels: { version: '{{ .Chart.AppVersion }}', chart: '{{ .Chart.Name }}-{{ .Chart.Version }}', static: null },
      podAnnotations: { 'checksum/config': '{{ .Values.config.service | sha256sum }}', plain: 'yes' },
    },
  },
  {
    id: 'tplvalues-define',
    chart: 'tplvalues',
    values: {
      config: {
        filters:
          '{{ define "tplvalues.filter" }}[FILTER]\n    Name grep{{ end }}{{ include "tplvalues.filter" . }}\n{{ template "tplvalues.fullname" $ }}',
      },
    },
  },
  { id: 'tplvalues-parse-error', chart: 'tplvalues', values: { config: { filters: '{{ .Values.port' } } },
  { id: 'tplvalues-nil-error', chart: 'tplvalues', values: { config: { outputs: '{{ .Values.nope.deeper }}' } } },
  { id: 'copies', chart: 'copies' },
  { id: 'copies-daemonset', chart: 'copies', values: { mode: 'daemonset', presets: { logsCollection: { enabled: true } } } },
  {
    id: 'copies-overrides',
    chart: 'copies',
    values: {
      overrides: { replicas: 5, labels: { tier: 'frontend', extra: 'x' } },
      component: { labels: { team: null }, resources: null },
    },
  },
  {
    id: 'copies-user-config',
    chart: 'copies',
    values: { config: { exporters: { otlp: { endpoint: 'tempo:4317' } }, service: { pipelines: { traces: { exporters: ['otlp'] } } } } },
  },
  { id: 'copies-dig-values', chart: 'copies', values: { digValues: true } },
  { id: 'copies-unknown-mode', chart: 'copies', values: { mode: 'statefulset' } },
  { id: 'capidioms', chart: 'capidioms' },
  { id: 'capidioms-monitoring', chart: 'capidioms', kubeVersion: '1.30.0', apiVersions: ['monitoring.coreos.com/v1'] },
  {
    id: 'capidioms-gvk',
    chart: 'capidioms',
    values: { metrics: { prometheusRule: { enabled: true } } },
    kubeVersion: 'v1.30.0',
    apiVersions: ['monitoring.coreos.com/v1', 'monitoring.coreos.com/v1/ServiceMonitor', 'monitoring.coreos.com/v1/PrometheusRule'],
  },
  { id: 'capidioms-old', chart: 'capidioms', kubeVersion: 'v1.20.4' },
  { id: 'capidioms-vendor', chart: 'capidioms', kubeVersion: '1.28.4-gke.100', apiVersions: ['monitoring.coreos.com/v1'] },
  { id: 'capidioms-too-old', chart: 'capidioms', kubeVersion: 'v1.18.0' },
  {
    id: 'capidioms-disabled',
    chart: 'capidioms',
    values: { existingSecret: 'db-auth', ingress: { enabled: false }, autoscaling: { enabled: false }, kubeVersionOverride: 'v1.19.0' },
  },
  { id: 'flowyaml', chart: 'flowyaml' },
  {
    id: 'flowyaml-user',
    chart: 'flowyaml',
    values: { gateway: { command: ['minio', 'gateway', 'nas'], env: { MINIO_BROWSER: 'off' } }, args: [], tier: 'storage' },
  },
  { id: 'lists', chart: 'lists' },
  {
    id: 'lists-extra',
    chart: 'lists',
    values: {
      extraVolumes: [
        { name: 'data', persistentVolumeClaim: { claimName: 'pvc' } },
        { name: 'cfg', configMap: { name: 'c', items: [{ key: 'a', path: 'a.txt' }] } },
      ],
      initContainers: [{ name: 'init', image: 'busybox', command: ['sh', '-c', 'echo {{ .Release.Name }}'] }],
      topologySpreadConstraints: [
        { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'x' } } },
      ],
      tolerations: [],
    },
  },
  { id: 'lists-empty', chart: 'lists', values: { affinity: null, extraContainers: [], matrix: [[], [[]]] } },
  { id: 'libhelpers', chart: 'libhelpers' },
  {
    id: 'libhelpers-global',
    chart: 'libhelpers',
    values: {
      global: { imageRegistry: 'mirror.example.com', imagePullSecrets: ['global-cred', { name: '{{ .Release.Name }}-cred' }] },
      commonLabels: { team: '{{ .Release.Namespace }}', env: 'prod' },
      image: { digest: 'sha256:abc', pullSecrets: [{ name: 'own' }, 'global-cred'] },
      fullnameOverride: 'web-frontend',
    },
    namespace: 'shop',
  },
  { id: 'libhelpers-names', chart: 'libhelpers', values: { nameOverride: 'web', image: { tag: 7 } }, releaseName: 'web-prod' },
  { id: 'validation-ok', chart: 'validation', values: { auth: { password: 's3cret' } } },
  { id: 'validation-auth', chart: 'validation' },
  { id: 'validation-many', chart: 'validation', values: { architecture: 'cluster', replicaCount: 3 } },
  { id: 'validation-replicas', chart: 'validation', values: { replicaCount: 2, auth: { existingSecret: 'db' } } },
  { id: 'validation-tls', chart: 'validation', values: { auth: { password: 'x' }, tls: { enabled: true } } },
  { id: 'validation-user', chart: 'validation', values: { auth: { password: 'x', username: '' } } },
  { id: 'validation-size', chart: 'validation', values: { auth: { password: 'x' }, persistence: { size: null } } },
  { id: 'validation-external', chart: 'validation', values: { auth: { password: 'x' }, architecture: 'external' } },
  {
    id: 'validation-external-ok',
    chart: 'validation',
    values: {
      auth: { password: 'x' },
      architecture: 'external',
      externalDatabase: { host: 'pg.example.com' },
      tls: { enabled: true, certFilename: 'tls.crt' },
    },
  },
  { id: 'generated', chart: 'generated' },
  {
    id: 'generated-custom',
    chart: 'generated',
    values: { passwordLength: 40, commonName: 'api', altNames: ['api.svc'], validityDays: 30 },
  },
  { id: 'schemaprops', chart: 'schemaprops' },
  { id: 'schemaprops-type', chart: 'schemaprops', values: { ports: { web: 'http' } } },
  { id: 'schemaprops-required', chart: 'schemaprops', values: { sidecars: { proxy: { tag: '1.0' } } } },
  { id: 'schemaprops-not-allowed', chart: 'schemaprops', values: { limits: { gpu: 1 } } },
  { id: 'schemaprops-extra', chart: 'schemaprops', values: { sidecars: { proxy: { image: 'envoy' } }, ports: { admin: 9901 } } },
]
