// The spec.helm source of the render pipeline (src/render/helm.ts): what the
// engine is asked to render, what its failures say, and how its objects
// become manifests.

import t from 'tap'
import type { Template } from '../../src/api/template.ts'
import { defaultCapabilities, HelmRenderError, type HelmRenderInput, loadChartFiles, renderChart } from '../../src/helm/index.ts'
import { inlineTemplateRunner } from '../../src/render/template-job.ts'
import { apiVersionsFromDiscovery, describeChart, helmManifests, type HelmRenderOutcome, renderHelmChart } from '../../src/render/helm.ts'

/** valuesTemplates on this thread, as the CLI runs them. */
const runTemplate = inlineTemplateRunner()
const repository = { url: 'oci://registry.example.com/charts', name: 'web', version: '1.2.0' }

function template(helm: Partial<NonNullable<Template['spec']['helm']>> = {}): Template {
  return { metadata: { name: 'web', namespace: 'platform' }, spec: { helm: { chart: { repository }, ...helm } } }
}

const instance = { metadata: { name: 'app1', namespace: 'team-a', labels: {} } }

const chart = await loadChartFiles(
  [
    { name: 'Chart.yaml', data: Buffer.from('apiVersion: v2\nname: web\nversion: 1.2.0\n') },
    { name: 'values.yaml', data: Buffer.from('replicas: 1\ncolor: blue\n') },
    {
      name: 'templates/cm.yaml',
      data: Buffer.from(
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cfg\ndata:\n  color: {{ .Values.color }}\n  replicas: {{ .Values.replicas | quote }}\n  ns: {{ .Release.Namespace }}\n',
      ),
    },
    {
      name: 'templates/role.yaml',
      data: Buffer.from('apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: {{ .Release.Name }}\nrules: []\n'),
    },
  ],
  { helm: 'v3' },
)

/** An engine that records its input and then renders for real. */
function recording(): { inputs: HelmRenderInput[]; render: (i: HelmRenderInput) => Promise<ReturnType<typeof renderChart>> } {
  const inputs: HelmRenderInput[] = []
  return {
    inputs,
    render: async (i) => {
      inputs.push(i)
      return renderChart(i)
    },
  }
}

function ok(r: HelmRenderOutcome) {
  if (!r.ok) throw new Error(`expected a render, got ${r.message}`)
  return r.result
}

t.test('the engine gets the release, namespace, Helm major and the valuesTemplate output', async (t) => {
  const engine = recording()
  const result = ok(
    await renderHelmChart({
      template: template({ valuesTemplate: 'color: {{ .parameters.color }}\nreplicas: 3' }),
      instance,
      values: { color: 'green' },
      chart,
      capabilities: defaultCapabilities(),
      runTemplate,
      render: engine.render,
      limits: { timeMs: 1234 },
    }),
  )
  const input = engine.inputs[0]
  t.equal(input?.releaseName, 'app1', 'the release name defaults to the instance name')
  t.equal(input?.namespace, 'team-a', 'the release namespace is the instance namespace')
  t.equal(input?.helm, 'v3', 'spec.helm.version defaults to v3')
  t.strictSame(input?.values, { color: 'green', replicas: 3 })
  t.strictSame(input?.limits, { timeMs: 1234 })
  t.match(result.objects[0]?.object, {
    kind: 'ConfigMap',
    metadata: { name: 'app1-cfg' },
    data: { color: 'green', replicas: '3', ns: 'team-a' },
  })

  const named = recording()
  await renderHelmChart({
    template: template({ releaseName: 'fixed', version: 'v4' }),
    instance,
    values: {},
    chart,
    capabilities: defaultCapabilities(),
    runTemplate,
    render: named.render,
  })
  t.equal(named.inputs[0]?.releaseName, 'fixed')
  t.equal(named.inputs[0]?.helm, 'v4')
  t.strictSame(named.inputs[0]?.values, {}, 'no valuesTemplate: no user values')
})

t.test('a valuesTemplate failure is reported before the chart renders', async (t) => {
  const engine = recording()
  const r = await renderHelmChart({
    template: template({ valuesTemplate: '- not\n- a mapping\n' }),
    instance,
    values: {},
    chart,
    capabilities: defaultCapabilities(),
    runTemplate,
    render: engine.render,
  })
  t.strictSame(r, {
    ok: false,
    reason: 'TemplateExecutionFailed',
    message: 'spec.helm.valuesTemplate must render a YAML mapping; it rendered a list at line 1',
  })
  t.equal(engine.inputs.length, 0)
})

t.test('an engine failure names the chart, version and repository, and keeps its code', async (t) => {
  const r = await renderHelmChart({
    template: template(),
    instance,
    values: {},
    chart,
    capabilities: defaultCapabilities(),
    runTemplate,
    render: async () => {
      throw new HelmRenderError('TemplateExec', 'template: web/templates/cm.yaml:6:14: executing "web/templates/cm.yaml" at <fail>: boom', {
        template: 'web/templates/cm.yaml',
        line: 6,
      })
    },
  })
  t.strictSame(r, {
    ok: false,
    reason: 'TemplateExecutionFailed',
    code: 'TemplateExec',
    message:
      'chart web 1.2.0 from oci://registry.example.com/charts: template: web/templates/cm.yaml:6:14: executing "web/templates/cm.yaml" at <fail>: boom',
  })
  await t.rejects(
    renderHelmChart({
      template: template(),
      instance,
      values: {},
      chart,
      capabilities: defaultCapabilities(),
      runTemplate,
      render: async () => Promise.reject(new Error('bug')),
    }),
    /bug/,
    'anything but a HelmRenderError is not a render result',
  )
})

t.test('objects become manifests: namespaced kinds get the instance namespace, cluster-scoped kinds none', async (t) => {
  const result = renderChart({
    chart,
    helm: 'v3',
    releaseName: 'app1',
    namespace: 'team-a',
    values: {},
    capabilities: defaultCapabilities(),
  })
  const m = helmManifests(result, repository, 'team-a', (_v, kind) =>
    kind === 'ClusterRole' ? false : kind === 'ConfigMap' ? true : undefined,
  )
  if (!m.ok) throw new Error(m.message)
  t.strictSame(
    m.objects.map((o) => o.ref),
    [
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', name: 'app1-cfg' },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'app1' },
    ],
    "in Helm's install order",
  )
  t.strictSame(m.unknownKinds, [])
  t.match(result.objects[0]?.object, { metadata: { namespace: undefined } }, "the engine's result is not changed")
  const unknown = helmManifests(result, repository, 'team-a', () => undefined)
  t.ok(unknown.ok && unknown.unknownKinds.length === 2)
})

t.test('a manifest problem names the chart and the template file', async (t) => {
  const dup = {
    objects: [
      { template: 'web/templates/a.yaml', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } },
      { template: 'web/templates/b.yaml', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } },
    ],
    skipped: [],
  }
  t.strictSame(
    helmManifests(dup, repository, 'ns', () => true),
    {
      ok: false,
      reason: 'TemplateExecutionFailed',
      message:
        'chart web 1.2.0 from oci://registry.example.com/charts: rendered documents 1 and 2 (web/templates/a.yaml, web/templates/b.yaml) are the same object v1 ConfigMap ns/x; each object may be rendered once',
    },
  )
  const nameless = {
    objects: [{ template: 'web/templates/a.yaml', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} } }],
    skipped: [],
  }
  const r = helmManifests(nameless, repository, 'ns', () => true)
  t.equal(
    r.ok ? '' : r.message,
    'chart web 1.2.0 from oci://registry.example.com/charts: rendered document 1 (web/templates/a.yaml, v1 ConfigMap): metadata.name is missing',
  )
})

t.test('describeChart never shows credentials of the URL', async (t) => {
  t.equal(
    describeChart({ url: 'https://user:pw@charts.example.com/x?token=s3cret', name: 'a', version: '1.0.0' }),
    'chart a 1.0.0 from https://charts.example.com/x',
  )
})

t.test('APIVersions from discovery: group/versions, then <gv>/<Kind>', async (t) => {
  t.strictSame(
    apiVersionsFromDiscovery([
      { groupVersion: 'v1', kinds: ['ConfigMap', 'Pod'] },
      { groupVersion: 'apps/v1', kinds: ['Deployment'] },
      { groupVersion: 'monitoring.coreos.com/v1', kinds: [] },
    ]),
    ['v1', 'apps/v1', 'monitoring.coreos.com/v1', 'v1/ConfigMap', 'v1/Pod', 'apps/v1/Deployment'],
  )
})
