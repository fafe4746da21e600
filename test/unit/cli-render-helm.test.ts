// `template-sync render` of a Helm Template without a cluster: a local chart
// (directory or .tgz) with --chart, or the chart from its repository (a
// repository served by this test), with Helm's default capabilities.

import t from 'tap'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { runRender } from '../../src/cli/render.ts'
import { FINALIZER_RESOURCE, LABEL_INSTANCE_NAME, LABEL_SYNC_MODE } from '../../src/api/names.ts'
import { parseYamlStream } from '../../src/encoding/yaml.ts'
import { tgz } from './helm-fixtures.ts'

const dir = mkdtempSync(join(tmpdir(), 'ts-cli-render-helm-'))
let seq = 0
function file(text: string): string {
  const p = join(dir, `f${++seq}.yaml`)
  writeFileSync(p, text)
  return p
}

const CHART: Record<string, string> = {
  'Chart.yaml': 'apiVersion: v2\nname: web\nversion: 1.2.0\n',
  'values.yaml': 'color: blue\nreplicas: 1\n',
  'templates/cm.yaml':
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cfg\ndata:\n  color: {{ .Values.color }}\n  kube: {{ .Capabilities.KubeVersion.Version }}\n',
  'templates/role.yaml':
    'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: {{ .Release.Name }}-reader\nrules: []\n',
  'templates/widget.yaml': 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: {{ .Release.Name }}\n',
  'templates/tests/hook.yaml': 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: t\n  annotations: {"helm.sh/hook": test}\n',
}
const chartDir = join(dir, 'web')
for (const [name, text] of Object.entries(CHART)) {
  mkdirSync(dirname(join(chartDir, name)), { recursive: true })
  writeFileSync(join(chartDir, name), text)
}
const archive = tgz(Object.entries(CHART).map(([name, data]) => ({ name: `web/${name}`, data })))
const chartTgz = join(dir, 'web-1.2.0.tgz')
writeFileSync(chartTgz, archive)

function templateYaml(opts: { url?: string; version?: string; valuesTemplate?: string; auth?: boolean } = {}): string {
  return `apiVersion: templates.v2.stakater.com/v2alpha1
kind: Template
metadata: { name: web, namespace: platform }
spec:
  targetNamespaces: { explicit: { allow: { literal: ["*"] } } }
  grants: { objects: [{ apiGroup: rbac.authorization.k8s.io, kind: ClusterRole }] }
  sync: { mode: strict }
  parameters:
    - { name: color, value: green }
  helm:
    chart:
      repository:
        url: ${opts.url ?? 'oci://registry.example.invalid/charts'}
        name: web
        version: ${opts.version ?? '1.2.0'}
${opts.auth ? '        auth: { secretRef: { name: creds } }\n' : ''}    valuesTemplate: |
      ${opts.valuesTemplate ?? 'color: {{ .parameters.color }}'}
`
}

const INSTANCE = `apiVersion: templates.v2.stakater.com/v2alpha1
kind: TemplateInstance
metadata: { name: app1, namespace: team-a }
spec:
  templateRef: { name: web, namespace: platform }
`

async function render(args: string[]) {
  let out = ''
  let err = ''
  const code = await runRender(args, {}, { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } })
  const docs =
    code === 0
      ? parseYamlStream(out).map((d) => d.value as { kind: string; metadata: Record<string, unknown>; data?: Record<string, string> })
      : []
  return { code, out, err, docs }
}

const files = (template = templateYaml()) => ['--template', file(template), '--instance', file(INSTANCE)]

for (const [what, path] of [
  ['a chart directory', chartDir],
  ['a .tgz', chartTgz],
] as const) {
  t.test(`--chart with ${what}: the chart's objects, valuesTemplate applied, namespaced and stamped`, async (t) => {
    const r = await render([...files(), '--chart', path])
    t.equal(r.code, 0, r.err)
    t.strictSame(
      r.docs.map((d) => `${d.kind} ${d.metadata['namespace'] ?? '-'}/${d.metadata['name']}`),
      ['ConfigMap team-a/app1-cfg', 'ClusterRole -/app1-reader', 'Widget -/app1'],
      "Helm's install order, the instance namespace on namespaced kinds",
    )
    const cm = r.docs[0]
    t.strictSame(cm?.data, { color: 'green', kube: 'v1.37.0' }, "valuesTemplate over the chart's values; Helm's default Kubernetes version")
    t.match(cm?.metadata, { labels: { [LABEL_INSTANCE_NAME]: 'app1', [LABEL_SYNC_MODE]: 'strict' }, finalizers: [FINALIZER_RESOURCE] })
    t.match(r.err, /note: \.Capabilities are Helm's defaults without a cluster \(Kubernetes v1\.37\.0/)
    t.match(r.err, /note: web\/templates\/tests\/hook\.yaml is not applied: /)
    t.match(r.err, /note: example\.com\/v1 Widget: whether this kind is namespaced is not known without --kubeconfig/)
  })
}

t.test('--kube-version and --api-versions set the Capabilities of a Helm Template too', async (t) => {
  const r = await render([...files(), '--chart', chartDir, '--kube-version', '1.30.2', '-a', 'example.com/v1'])
  t.equal(r.code, 0, r.err)
  t.equal(r.docs[0]?.data?.['kube'], 'v1.30.2')
  t.match(
    r.err,
    /note: \.Capabilities without a cluster: Kubernetes 1\.30\.2 \(--kube-version\), Helm's built-in API versions and 1 from --api-versions/,
  )
})

t.test('--chart with another version than the Template names says so', async (t) => {
  const r = await render([...files(templateYaml({ version: '2.0.0' })), '--chart', chartDir])
  t.equal(r.code, 0)
  t.match(
    r.err,
    /note: rendering chart web 1\.2\.0 from .*; the Template names chart web 2\.0\.0 from oci:\/\/registry\.example\.invalid\/charts/,
  )
})

t.test('a valuesTemplate error is the condition the reconciler would set, with the line', async (t) => {
  const r = await render([...files(templateYaml({ valuesTemplate: '- not a mapping' })), '--chart', chartDir])
  t.equal(r.code, 1)
  t.equal(
    r.err.trim().split('\n').at(-1),
    'template-sync render: TemplateExecutionFailed: spec.helm.valuesTemplate must render a YAML mapping; it rendered a list at line 1',
  )
})

t.test('a --chart that does not load is reported', async (t) => {
  const r = await render([...files(), '--chart', join(dir, 'missing.tgz')])
  t.equal(r.code, 1)
  t.match(r.err, /template-sync render: ChartUnavailable: cannot load chart .*missing\.tgz/)
})

t.test('without --chart the chart comes from its repository; an auth Secret needs a cluster', async (t) => {
  const requests: string[] = []
  const index = `apiVersion: v1\nentries:\n  web:\n  - {apiVersion: v2, name: web, version: 1.2.0, urls: [web-1.2.0.tgz], digest: ${createHash('sha256').update(archive).digest('hex')}}\n`
  const server = createServer((req, res) => {
    requests.push(req.url ?? '')
    if (req.url === '/charts/index.yaml') res.end(index)
    else if (req.url === '/charts/web-1.2.0.tgz') res.end(archive)
    else res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/charts`
  const r = await render(files(templateYaml({ url })))
  t.equal(r.code, 0, r.err)
  t.equal(r.docs[0]?.data?.['color'], 'green')
  t.strictSame(requests, ['/charts/index.yaml', '/charts/web-1.2.0.tgz'])

  const auth = await render(files(templateYaml({ url, auth: true })))
  t.equal(auth.code, 1)
  t.match(
    auth.err,
    /the chart repository needs auth Secret platform\/creds, which is read from a cluster: pass --kubeconfig, or a local chart with --chart PATH/,
  )

  const missing = await render(files(templateYaml({ url, version: '9.9.9' })))
  t.equal(missing.code, 1)
  t.match(
    missing.err,
    new RegExp(
      `template-sync render: ChartUnavailable: ${url.replaceAll('.', '\\.')} chart web version 9\\.9\\.9: the repository index has no version 9\\.9\\.9`,
    ),
  )
})
