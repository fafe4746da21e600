// Renders the `helm create` chart and a large chart of our own (36
// templates: a parent and two subcharts, one of them a .tgz) N times in
// process, and the same charts with the same values in Helm 3's own engine
// (helm-engine, built by test/cluster/build.sh: it loads the chart and
// processes dependencies once, then times ToRenderValues + engine.Render).
// The rendered templates are checked equal to Go's first. Prints per-render
// times, the ratio TS/Go, and a cold render (first render of a chart in a
// fresh process: parsing included), and a cold fetch from a local OCI
// registry (the scaffold pushed by `helm push`) plus its render, and renders
// through the reconciler's worker pool (the first one starts a worker; warm
// ones against renderChart on this thread: the cost of the thread hop). Last
// line: one JSON object.
//
//   npm run bench:helm            BENCH_RENDERS=500 by default

import { Validator } from '@cfworker/json-schema'
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { createChartFetcher, defaultCapabilities, loadChartPath } from '../src/helm/index.ts'
import { renderChart } from '../src/helm/render/index.ts'
import { renderFiles } from '../src/helm/render/render.ts'
import type { HelmRenderInput } from '../src/helm/render/types.ts'
import { DEFAULT_API_VERSIONS } from '../src/helm/render/capabilities.ts'
import { defaultBinDir } from '../src/local/controlplane.ts'
import { createRenderPool } from '../src/reconciler/render-pool.ts'

const N = Number(process.env.BENCH_RENDERS ?? 500)
const engine = join(defaultBinDir(), 'helm-engine')
const helm = join(defaultBinDir(), 'helm')
for (const b of [engine, helm, join(defaultBinDir(), 'oci-registry')]) {
  if (!existsSync(b)) {
    console.error(`${b} is missing: run "bash test/cluster/build.sh helm helm-engine"`)
    process.exit(2)
  }
}

const scaffoldDir = fileURLToPath(new URL('../test/helm/charts/scaffold', import.meta.url))

/** A large chart: a parent with 20 templates and helpers, subcharts "api" (directory, 8) and "worker" (.tgz, 8). */
async function writeLargeChart(root: string): Promise<string> {
  const w = async (p: string, text: string) => {
    await mkdir(join(p, '..'), { recursive: true })
    await writeFile(p, text)
  }
  const helpers = (name: string) => `{{- define "${name}.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- define "${name}.fullname" -}}
{{- printf "%s-%s" .Release.Name (include "${name}.name" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- define "${name}.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "${name}.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.extraLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}
`
  const deployment = (name: string, i: number) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "${name}.fullname" . }}-${i}
  labels:
    {{- include "${name}.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels:
      app: {{ include "${name}.name" . }}-${i}
  template:
    metadata:
      annotations:
        checksum/config: {{ toJson .Values.config | sha256sum }}
      labels:
        app: {{ include "${name}.name" . }}-${i}
    spec:
      containers:
      {{- range $c := .Values.containers }}
      - name: {{ $c.name }}
        image: "{{ $.Values.image.repository }}:{{ $.Values.image.tag | default $.Chart.AppVersion }}"
        args: {{ toJson $c.args }}
        env:
        {{- range $k, $v := $.Values.config }}
        - name: {{ $k | upper | replace "." "_" }}
          value: {{ tpl (toString $v) $ | quote }}
        {{- end }}
        resources:
          {{- toYaml $.Values.resources | nindent 10 }}
      {{- end }}
`
  const configmap = (name: string, i: number) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "${name}.fullname" . }}-cm-${i}
  labels:
    {{- include "${name}.labels" . | nindent 4 }}
data:
  {{- range $k, $v := .Values.config }}
  {{ $k }}: {{ $v | quote }}
  {{- end }}
  settings.yaml: |
    {{- toYaml .Values | nindent 4 }}
`
  const service = (name: string, i: number) => `apiVersion: v1
kind: Service
metadata:
  name: {{ include "${name}.fullname" . }}-svc-${i}
spec:
  type: {{ .Values.service.type }}
  ports:
  {{- range .Values.service.ports }}
  - port: {{ .port }}
    targetPort: {{ .target }}
    name: {{ .name }}
  {{- end }}
`
  const values = `replicas: 2
image:
  repository: registry.example.com/app
  tag: ""
extraLabels:
  team: platform
config:
  log.level: info
  feature.flag: "true"
  endpoint: "http://{{ .Release.Name }}.svc"
containers:
- name: main
  args: ["--port", "8080"]
- name: sidecar
  args: ["--proxy"]
resources:
  limits: {cpu: 500m, memory: 256Mi}
  requests: {cpu: 100m, memory: 128Mi}
service:
  type: ClusterIP
  ports:
  - {port: 80, target: 8080, name: http}
  - {port: 9090, target: 9090, name: metrics}
`
  const chart = async (dir: string, name: string, deps: string, nDeploy: number) => {
    await w(join(dir, 'Chart.yaml'), `apiVersion: v2\nname: ${name}\nversion: 1.0.0\nappVersion: "2.0"\n${deps}`)
    await w(join(dir, 'values.yaml'), values)
    await w(join(dir, 'templates/_helpers.tpl'), helpers(name))
    for (let i = 0; i < nDeploy; i++) {
      await w(join(dir, `templates/deploy-${i}.yaml`), deployment(name, i))
      await w(join(dir, `templates/cm-${i}.yaml`), configmap(name, i))
    }
    await w(join(dir, 'templates/svc.yaml'), service(name, 0))
  }
  const dir = join(root, 'large')
  await chart(dir, 'large', 'dependencies:\n- name: api\n  version: 1.0.0\n- name: worker\n  version: 1.0.0\n', 10)
  await chart(join(dir, 'charts/api'), 'api', '', 4)
  const src = join(root, 'src')
  await chart(join(src, 'worker'), 'worker', '', 4)
  execFileSync(helm, ['package', join(src, 'worker'), '-d', join(dir, 'charts')], { env: { PATH: process.env.PATH ?? '', HOME: root } })
  return dir
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

interface Figures {
  templates: number
  outputBytes: number
  coldMs: number
  warmMs: number
  warmFilesMs: number
  goMs: number
}

async function benchChart(dir: string): Promise<Figures> {
  const chart = await loadChartPath(dir, { helm: 'v3' })
  const input: HelmRenderInput = {
    chart,
    helm: 'v3',
    releaseName: 'release-name',
    namespace: 'default',
    values: {},
    // helm-engine renders with Helm's DefaultCapabilities of a plain go build (v1.20.0).
    capabilities: { kubeVersion: 'v1.20.0', apiVersions: DEFAULT_API_VERSIONS },
  }
  const t0 = performance.now()
  const first = renderFiles(input).rendered
  const coldMs = performance.now() - t0
  const go = JSON.parse(execFileSync(engine, ['-chart', dir], { encoding: 'utf8', maxBuffer: 64 << 20 })) as Record<string, string>
  const ours = Object.fromEntries([...first].sort(([a], [b]) => (a < b ? -1 : 1)))
  const goSorted = Object.fromEntries(Object.entries(go).sort(([a], [b]) => (a < b ? -1 : 1)))
  if (JSON.stringify(ours) !== JSON.stringify(goSorted)) {
    for (const k of new Set([...Object.keys(ours), ...Object.keys(goSorted)])) {
      if (ours[k] !== goSorted[k]) console.error(`differs: ${k}\n--- go\n${goSorted[k]}\n--- ours\n${ours[k]}`)
    }
    throw new Error(`${dir}: rendered templates differ from Helm's engine; not benchmarking`)
  }
  const outputBytes = Object.values(ours).reduce((n, s) => n + Buffer.byteLength(s), 0)
  const full: number[] = []
  const files: number[] = []
  const goMs: number[] = []
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < Math.min(50, N); i++) renderChart(input)
    let s = performance.now()
    for (let i = 0; i < N; i++) renderChart(input)
    full.push((performance.now() - s) / N)
    s = performance.now()
    for (let i = 0; i < N; i++) renderFiles(input)
    files.push((performance.now() - s) / N)
    const g = spawnSync(engine, ['-chart', dir, '-bench', String(N)], { encoding: 'utf8' })
    if (g.status !== 0) throw new Error(`helm-engine -bench failed: ${g.stderr}`)
    goMs.push((JSON.parse(g.stdout) as { meanMs: number }).meanMs)
  }
  return {
    templates: Object.keys(ours).length,
    outputBytes,
    coldMs,
    warmMs: median(full),
    warmFilesMs: median(files),
    goMs: median(goMs),
  }
}

/** The JSON-schema dependency's cost: compiling and checking a 200-property schema against 200 values tables. */
function schemaCost(): { compileMs: number; validateMs: number } {
  const props: Record<string, unknown> = {}
  const vals: Record<string, unknown> = {}
  for (let i = 0; i < 200; i++) {
    props[`p${i}`] = {
      type: 'object',
      properties: { a: { type: 'integer', minimum: 0 }, b: { type: 'string', enum: ['x', 'y'] } },
      required: ['a'],
    }
    vals[`p${i}`] = { a: i, b: 'x' }
  }
  const schema = { type: 'object', properties: props }
  const make = () => new Validator(schema as never, '2020-12', false)
  for (let i = 0; i < 50; i++) make().validate(vals)
  let s = performance.now()
  for (let i = 0; i < N; i++) make()
  const compileMs = (performance.now() - s) / N
  const v = make()
  s = performance.now()
  for (let i = 0; i < N; i++) if (!v.validate(vals).valid) throw new Error('schema bench values are invalid')
  return { compileMs, validateMs: (performance.now() - s) / N }
}

/** Cold fetch + render: the scaffold pushed by helm to a local OCI registry, fetched and rendered by a fresh fetcher. */
async function ociColdMs(work: string): Promise<{ fetchMs: number; renderMs: number }> {
  const registry = spawn(join(defaultBinDir(), 'oci-registry'), ['-auth', 'none'], { stdio: ['ignore', 'pipe', 'inherit'] })
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: registry.stdout }).once('line', resolve)
      registry.once('exit', (code) => reject(new Error(`oci-registry exited with ${code}`)))
    })
    const host = line.replace(/^listening /, '')
    const env = { PATH: process.env.PATH ?? '', HOME: work }
    execFileSync(helm, ['package', scaffoldDir, '-d', work], { env })
    execFileSync(helm, ['push', join(work, 'scaffold-0.1.0.tgz'), `oci://${host}/charts`, '--plain-http'], { env, stdio: 'ignore' })
    const fetcher = createChartFetcher({ plainHttpRegistries: [host] })
    let s = performance.now()
    const { chart } = await fetcher.fetchChart({
      repository: { url: `oci://${host}/charts`, name: 'scaffold', version: '0.1.0' },
      helm: 'v3',
    })
    const fetchMs = performance.now() - s
    s = performance.now()
    renderChart({ chart, helm: 'v3', releaseName: 'oci', namespace: 'default', values: {}, capabilities: defaultCapabilities() })
    return { fetchMs, renderMs: performance.now() - s }
  } finally {
    registry.kill()
  }
}

/** Renders of one chart through the reconciler's render pool (one worker), and the same on this thread. */
async function poolMs(dir: string): Promise<{ firstMs: number; warmMs: number; inlineMs: number }> {
  const chart = await loadChartPath(dir, { helm: 'v3' })
  const input: HelmRenderInput = {
    chart,
    helm: 'v3',
    releaseName: 'pool',
    namespace: 'default',
    values: {},
    capabilities: defaultCapabilities(),
  }
  const pool = createRenderPool({ size: 1 })
  try {
    let s = performance.now()
    await pool.render(input)
    const firstMs = performance.now() - s
    s = performance.now()
    for (let i = 0; i < N; i++) await pool.render(input)
    const warmMs = (performance.now() - s) / N
    s = performance.now()
    for (let i = 0; i < N; i++) renderChart(input)
    return { firstMs, warmMs, inlineMs: (performance.now() - s) / N }
  } finally {
    await pool.close()
  }
}

const tmp = await mkdtemp(join(tmpdir(), 'bench-helm-'))
try {
  const largeDir = await writeLargeChart(tmp)
  const results: Record<string, Figures> = {}
  for (const [name, dir] of [
    ['scaffold', scaffoldDir],
    ['large', largeDir],
  ] as const) {
    const f = await benchChart(dir)
    results[name] = f
    console.log(
      `${name}: ${f.templates} templates, ${f.outputBytes} bytes, identical to Helm's engine; cold ${f.coldMs.toFixed(1)} ms; ` +
        `warm renderChart ${f.warmMs.toFixed(3)} ms (templates only ${f.warmFilesMs.toFixed(3)} ms) vs Go ${f.goMs.toFixed(3)} ms: ` +
        `ratio ${(f.warmFilesMs / f.goMs).toFixed(2)} (full ${(f.warmMs / f.goMs).toFixed(2)})`,
    )
  }
  // The scaffold's templates were parsed above (the parse cache is keyed by text), so this is the fetch (pull,
  // unpack, load) and the first render of a freshly loaded chart object.
  const oci = await ociColdMs(tmp)
  console.log(`OCI (local registry): cold fetch ${oci.fetchMs.toFixed(1)} ms + render ${oci.renderMs.toFixed(1)} ms`)
  const pool = await poolMs(scaffoldDir)
  console.log(
    `scaffold through the render pool: first ${pool.firstMs.toFixed(1)} ms (worker start), warm ${pool.warmMs.toFixed(3)} ms vs ${pool.inlineMs.toFixed(3)} ms on this thread`,
  )
  const schema = schemaCost()
  console.log(`values.schema.json (200 properties): compile ${schema.compileMs.toFixed(3)} ms, validate ${schema.validateMs.toFixed(3)} ms`)
  const round = (x: number) => Number(x.toFixed(3))
  const s = results.scaffold as Figures
  const l = results.large as Figures
  console.log(
    JSON.stringify({
      bench: 'helm',
      renders: N,
      scaffold_templates: s.templates,
      scaffold_cold_ms: round(s.coldMs),
      scaffold_warm_ms: round(s.warmMs),
      scaffold_templates_ms: round(s.warmFilesMs),
      scaffold_go_ms: round(s.goMs),
      scaffold_ratio: round(s.warmFilesMs / s.goMs),
      scaffold_ratio_full: round(s.warmMs / s.goMs),
      large_templates: l.templates,
      large_output_bytes: l.outputBytes,
      large_cold_ms: round(l.coldMs),
      large_warm_ms: round(l.warmMs),
      large_templates_ms: round(l.warmFilesMs),
      large_go_ms: round(l.goMs),
      large_ratio: round(l.warmFilesMs / l.goMs),
      large_ratio_full: round(l.warmMs / l.goMs),
      oci_cold_fetch_ms: round(oci.fetchMs),
      oci_render_ms: round(oci.renderMs),
      pool_first_render_ms: round(pool.firstMs),
      pool_warm_ms: round(pool.warmMs),
      pool_inline_warm_ms: round(pool.inlineMs),
      schema200_compile_ms: round(schema.compileMs),
      schema200_validate_ms: round(schema.validateMs),
    }),
  )
} finally {
  await rm(tmp, { recursive: true, force: true })
}
