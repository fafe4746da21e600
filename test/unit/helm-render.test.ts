// renderChart on small charts built in memory: the pipeline end to end
// (values, subcharts, include, CRDs, hooks, NOTES), and the errors it names.
// The byte-level agreement with helm is the differential corpus's job
// (test/unit/helm-render-corpus.test.ts).

import t from 'tap'
import { int64 } from '../../src/gotemplate/index.ts'
import { defaultCapabilities, HelmRenderError, loadChartFiles, renderChart } from '../../src/helm/index.ts'
import type { HelmMajor, HelmRenderInput } from '../../src/helm/index.ts'

const file = (name: string, data: string) => ({ name, data: Buffer.from(data) })

async function chartOf(files: Record<string, string>, helm: HelmMajor = 'v3') {
  return loadChartFiles(
    Object.entries(files).map(([n, d]) => file(n, d)),
    { helm },
  )
}

async function render(files: Record<string, string>, extra: Partial<HelmRenderInput> = {}) {
  const helm = extra.helm ?? 'v3'
  return renderChart({
    chart: await chartOf(files, helm),
    helm,
    releaseName: 'rel',
    namespace: 'ns1',
    values: {},
    capabilities: defaultCapabilities(),
    ...extra,
  })
}

function failure(fn: () => unknown): HelmRenderError {
  try {
    fn()
  } catch (e) {
    if (e instanceof HelmRenderError) return e
    throw e
  }
  throw new Error('no error')
}

const CHART = 'apiVersion: v2\nname: demo\nversion: 1.0.0\n'

t.test('a chart with a partial, values and a subchart renders its objects in install order', async (t) => {
  const r = await render(
    {
      'Chart.yaml': CHART,
      'values.yaml': 'replicas: 2\nsub:\n  port: 80\n',
      'templates/_helpers.tpl': '{{ define "demo.name" }}{{ .Release.Name }}-{{ .Chart.Name }}{{ end }}',
      'templates/deploy.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ include "demo.name" . }}\n  namespace: {{ .Release.Namespace }}\nspec:\n  replicas: {{ .Values.replicas }}\n',
      'templates/NOTES.txt': 'installed {{ .Release.Name }}',
      'charts/sub/Chart.yaml': 'apiVersion: v2\nname: sub\nversion: 0.1.0\n',
      'charts/sub/values.yaml': 'port: 8080\nname: s\n',
      'charts/sub/templates/svc.yaml':
        'apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Values.name }}\nspec:\n  ports:\n  - port: {{ .Values.port }}\n',
    },
    { values: { replicas: 3 } },
  )
  t.same(
    r.objects.map((o) => [o.template, o.object.kind]),
    [
      ['demo/charts/sub/templates/svc.yaml', 'Service'],
      ['demo/templates/deploy.yaml', 'Deployment'],
    ],
  )
  t.same(r.objects[1]?.object, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'rel-demo', namespace: 'ns1' },
    spec: { replicas: 3 },
  })
  t.same(r.objects[0]?.object.spec, { ports: [{ port: 80 }] }, 'the parent value wins over the subchart default')
  t.same(r.skipped, [{ template: 'demo/templates/NOTES.txt', reason: 'NOTES.txt is not a manifest' }])
})

t.test('CRDs come first and raw; hooks and tests are skipped with their reason', async (t) => {
  const r = await render({
    'Chart.yaml': CHART,
    'crds/crd.yaml': 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: "{{ .Values.raw }}"\n',
    'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n',
    'templates/job.yaml': 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n    helm.sh/hook: pre-install\n',
    'templates/test.yaml': 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: t\n  annotations:\n    "helm.sh/hook": test\n',
  })
  t.same(
    r.objects.map((o) => o.template),
    ['demo/crds/crd.yaml', 'demo/templates/cm.yaml'],
  )
  t.same(r.objects[0]?.object.metadata, { name: '{{ .Values.raw }}' }, 'crds/ files are not templates')
  t.same(
    r.skipped.map((s) => s.template),
    ['demo/templates/test.yaml', 'demo/templates/job.yaml'],
    'hooks in Helm order: by kind, Pod before Job',
  )
  t.match(r.skipped[0]?.reason, /test hook/)
  t.match(r.skipped[1]?.reason, /hooks are not applied/)
})

t.test('fail and required name the template file and line as Helm does', async (t) => {
  const chart = await chartOf({
    'Chart.yaml': CHART,
    'templates/a.yaml': 'x: 1\n{{ required "image.tag is required" .Values.image }}\n',
  })
  const base = { chart, releaseName: 'r', namespace: 'n', values: {}, capabilities: defaultCapabilities() }
  for (const helm of ['v3', 'v4'] as const) {
    const e = failure(() => renderChart({ ...base, helm }))
    t.equal(e.message, 'execution error at (demo/templates/a.yaml:2:3): image.tag is required')
    t.equal(e.template, 'demo/templates/a.yaml')
    t.equal(e.line, 2)
    t.equal(e.code, 'TemplateExec')
  }
})

t.test('a parse error names the file and line', async (t) => {
  const chart = await chartOf({ 'Chart.yaml': CHART, 'templates/a.yaml': 'a: 1\nb: {{ .Values.x | nope }}\n' })
  const e = failure(() =>
    renderChart({ chart, helm: 'v3', releaseName: 'r', namespace: 'n', values: {}, capabilities: defaultCapabilities() }),
  )
  t.equal(e.code, 'TemplateParse')
  t.equal(e.template, 'demo/templates/a.yaml')
  t.equal(e.line, 2)
  t.equal(e.message, 'parse error at (demo/templates/a.yaml:2): function "nope" not defined')
})

t.test('a template that includes itself forever stops with a limit error', async (t) => {
  const chart = await chartOf({
    'Chart.yaml': CHART,
    'templates/_loop.tpl': '{{ define "loop" }}{{ include "loop" . }}{{ end }}',
    'templates/a.yaml': '{{ include "loop" . }}',
  })
  const e = failure(() =>
    renderChart({ chart, helm: 'v3', releaseName: 'r', namespace: 'n', values: {}, capabilities: defaultCapabilities() }),
  )
  t.equal(e.code, 'Limit')
  t.equal(e.template, 'demo/templates/a.yaml')
  t.match(e.message, /nested more than 100 deep/)
})

t.test('an invalid release name and a library chart are refused', async (t) => {
  const lib = await chartOf({ 'Chart.yaml': `${CHART}type: library\n` })
  const base = { helm: 'v3' as const, namespace: 'n', values: {}, capabilities: defaultCapabilities() }
  t.equal(failure(() => renderChart({ ...base, chart: lib, releaseName: 'ok' })).message, 'library charts are not installable')
  t.equal(failure(() => renderChart({ ...base, chart: lib, releaseName: 'Bad_Name' })).code, 'ReleaseName')
})

t.test('render limits: loop iterations, output size and time each stop the render with a Limit error naming the template', async (t) => {
  const base = { helm: 'v3' as const, releaseName: 'r', namespace: 'n', values: {}, capabilities: defaultCapabilities() }
  const loop = await chartOf({ 'Chart.yaml': CHART, 'templates/loop.yaml': '{{ range $i := until 100000 }}{{ $i }}{{ end }}' })
  const iterations = failure(() => renderChart({ ...base, chart: loop, limits: { rangeIterations: 1000 } }))
  t.equal(iterations.code, 'Limit')
  t.equal(iterations.template, 'demo/templates/loop.yaml')
  t.match(iterations.message, /range loops exceeded the limit of 1000 iterations/)
  const big = await chartOf({ 'Chart.yaml': CHART, 'templates/big.yaml': '{{ repeat 100000 "x" }}{{ repeat 100000 "y" }}' })
  const output = failure(() => renderChart({ ...base, chart: big, limits: { outputBytes: 150_000 } }))
  t.equal(output.code, 'Limit')
  t.match(output.message, /exceeds the limit of 150000 bytes/)
  const slow = await chartOf({
    'Chart.yaml': CHART,
    'templates/_f.tpl':
      '{{ define "fan" }}{{ range until 4 }}{{ include "leaf" . }}{{ end }}{{ end }}{{ define "leaf" }}{{ sha256sum "x" }}{{ end }}',
    'templates/slow.yaml': '{{ range until 1000000 }}{{ include "fan" . }}{{ end }}',
  })
  const started = performance.now()
  const time = failure(() =>
    renderChart({ ...base, chart: slow, limits: { timeMs: 200, calls: 100_000_000, rangeIterations: 100_000_000 } }),
  )
  t.equal(time.code, 'Limit')
  t.equal(time.template, 'demo/templates/slow.yaml')
  t.ok(performance.now() - started < 5000, 'stopped soon after the time limit')
})

t.test('lookup is an empty map and getHostByName empty: no live reads', async (t) => {
  const r = await render({
    'Chart.yaml': CHART,
    'templates/cm.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  lookup: {{ lookup "v1" "Secret" "kube-system" "" | toJson | quote }}\n  dns: {{ getHostByName "localhost" | quote }}\n',
  })
  t.same(r.objects[0]?.object.data, { lookup: '{}', dns: '' })
})

t.test('env and expandenv do not exist: a parse error, as in Helm', async (t) => {
  const chart = await chartOf({ 'Chart.yaml': CHART, 'templates/a.yaml': 'x: {{ env "HOME" }}\n' })
  const e = failure(() =>
    renderChart({ chart, helm: 'v4', releaseName: 'r', namespace: 'n', values: {}, capabilities: defaultCapabilities() }),
  )
  t.equal(e.message, 'parse error at (demo/templates/a.yaml:1): function "env" not defined')
})

t.test('the caller values object is not changed by the render', async (t) => {
  const values = { sub: { port: null }, list: [1] }
  const before = JSON.stringify(values)
  await render(
    {
      'Chart.yaml': `${CHART}dependencies:\n- name: sub\n  version: 0.1.0\n`,
      'charts/sub/Chart.yaml': 'apiVersion: v2\nname: sub\nversion: 0.1.0\n',
      'charts/sub/values.yaml': 'port: 1\n',
      'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n',
    },
    { values },
  )
  t.equal(JSON.stringify(values), before)
})

// Issue 24: defects that stopped real charts from rendering.

const configMap = (data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n${data}`

t.test('tpl of an empty, blank or comment-only text inside another tpl renders that text, not the enclosing one', async (t) => {
  const r = await render({
    'Chart.yaml': CHART,
    'values.yaml': 'inner: ""\n',
    'templates/cm.yaml': configMap(
      [
        `  empty: {{ tpl "x{{ tpl \\"\\" . }}y" . | quote }}`,
        `  blank: {{ tpl "x{{ tpl \\"  \\" . }}y" . | quote }}`,
        `  comment: {{ tpl "x{{ tpl \\"{{/* c */}}\\" . }}y" . | quote }}`,
        '  fromValues: {{ tpl "a{{ tpl .Values.inner . }}b" . | quote }}',
        String.raw`  defineOnly: {{ tpl "x{{ tpl \"{{ define \\\"d\\\" }}D{{ end }}\" . }}y" . | quote }}`,
        '',
      ].join('\n'),
    ),
  })
  t.same(r.objects[0]?.object.data, { empty: 'xy', blank: 'x  y', comment: 'xy', fromValues: 'ab', defineOnly: 'xy' })
})

t.test('deepCopy of .Values keeps its map type: hasKey, keys, merge and pick take the copy', async (t) => {
  for (const helm of ['v3', 'v4'] as const) {
    const r = await render(
      {
        'Chart.yaml': CHART,
        'values.yaml': 'x: 1\nmode: deployment\n',
        'templates/cm.yaml': configMap(
          [
            '  type: {{ typeOf (deepCopy .Values) | quote }}',
            '  hasKey: {{ hasKey (deepCopy .Values) "x" | quote }}',
            '  keys: {{ keys (deepCopy .Values) | sortAlpha | join "," | quote }}',
            '  merged: {{ merge (deepCopy .Values) (dict "y" 2) | toJson | quote }}',
            '  picked: {{ pick (mustDeepCopy .Values) "mode" | toJson | quote }}',
            '  original: {{ .Values | toJson | quote }}',
            '',
          ].join('\n'),
        ),
      },
      { helm },
    )
    t.same(
      r.objects[0]?.object.data,
      {
        type: helm === 'v3' ? 'chartutil.Values' : 'common.Values',
        hasKey: 'true',
        keys: 'mode,x',
        merged: '{"mode":"deployment","x":1,"y":2}',
        picked: '{"mode":"deployment"}',
        original: '{"mode":"deployment","x":1}',
      },
      helm,
    )
  }
})

t.test('a flow sequence in values.yaml closed at its key indentation loads, as go-yaml reads it', async (t) => {
  const r = await render({
    'Chart.yaml': CHART,
    'values.yaml': 'store:\n  command: [\n      "serve",\n      "--port=9000"\n  ]\n',
    'templates/cm.yaml': configMap('  command: {{ .Values.store.command | join " " | quote }}\n  b: [\n      "x"\n    ]\n'),
  })
  t.same(r.objects[0]?.object.data, { command: 'serve --port=9000', b: ['x'] })
})

t.test('a value failing an additionalProperties schema is reported by what failed in it; a false one names the properties', async (t) => {
  const schema = JSON.stringify({
    type: 'object',
    properties: {
      ports: { type: 'object', additionalProperties: { type: 'integer' } },
      strict: { type: 'object', properties: { a: {} }, additionalProperties: false },
    },
  })
  const chart = await chartOf({ 'Chart.yaml': CHART, 'values.schema.json': schema, 'templates/a.yaml': '' })
  const base = { chart, helm: 'v3' as const, releaseName: 'r', namespace: 'n', capabilities: defaultCapabilities() }
  const head = "values don't meet the specifications of the schema(s) in the following chart(s):\ndemo:\n"
  t.equal(
    failure(() => renderChart({ ...base, values: { ports: { web: 'x', api: 1 } } })).message,
    `${head}- at '/ports/web': got string, want integer`,
  )
  t.equal(
    failure(() => renderChart({ ...base, values: { strict: { a: 1, b: 2, c: 3 } } })).message,
    `${head}- at '/strict': additional properties 'b', 'c' not allowed`,
  )
  t.equal(renderChart({ ...base, values: { ports: { web: 80 }, strict: { a: 1 } } }).objects.length, 0, 'valid values render')
})

t.test('an int64 from --set is an integer to values.schema.json, as to Helm', async (t) => {
  const schema = JSON.stringify({ type: 'object', properties: { replicas: { type: 'integer' }, name: { type: 'string' } } })
  const chart = await chartOf({ 'Chart.yaml': CHART, 'values.schema.json': schema, 'templates/a.yaml': '' })
  const base = { chart, helm: 'v3' as const, releaseName: 'r', namespace: 'n', capabilities: defaultCapabilities() }
  t.equal(renderChart({ ...base, values: { replicas: int64(3n) } }).objects.length, 0, 'valid')
  t.match(failure(() => renderChart({ ...base, values: { name: int64(7n) } })).message, /- at '\/name': got number, want string$/)
})
