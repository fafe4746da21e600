// `template-sync render --chart PATH` alone: the chart rendered with helm
// template's flags (-f, --set, --set-string, --set-file, --kube-version,
// --api-versions, --release-name, -n, --helm-version). The last tests run
// the real helm 3 and 4 (TEMPLATE_SYNC_BIN_DIR, built by `npm run test:unit`)
// and require the same objects, in the same order.

import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { runRender } from '../../src/cli/render.ts'
import { parseYamlStream } from '../../src/encoding/yaml.ts'
import { CHARTS_DIR, helmBinary, parseHelmOutput } from '../helm/corpus.ts'

const dir = mkdtempSync(join(tmpdir(), 'ts-cli-render-chart-'))
let seq = 0
function file(text: string): string {
  const p = join(dir, `f${++seq}.yaml`)
  writeFileSync(p, text)
  return p
}

interface Doc {
  kind: string
  metadata: Record<string, unknown>
  data?: Record<string, unknown>
  spec?: Record<string, unknown>
}

async function render(args: string[]) {
  let out = ''
  let err = ''
  const code = await runRender(args, {}, { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } })
  const docs = code === 0 ? parseYamlStream(out).map((d) => d.value as Doc) : []
  return { code, out, err, docs }
}

const chart = (name: string) => join(CHARTS_DIR, name)

t.test('--chart alone renders the chart: values from -f, --set, --set-string and --set-file in Helm order', async (t) => {
  const first = file('replicaCount: 2\nimage: {tag: from-file, pullPolicy: Never}\nservice: {port: 81}\n')
  const second = file('image: {tag: second-file}\n')
  const annotation = join(dir, 'annotation.txt')
  writeFileSync(annotation, 'from --set-file')
  const r = await render([
    '--chart',
    chart('scaffold'),
    '-f',
    first,
    '--values',
    second,
    '--set',
    'replicaCount=5,podLabels.tier=web',
    '--set-string',
    'podLabels.version=10',
    '--set-file',
    `podAnnotations.note=${annotation}`,
    '--release-name',
    'shop',
    '-n',
    'team-a',
  ])
  t.equal(r.code, 0, r.err)
  const deployment = r.docs.find((d) => d.kind === 'Deployment')
  t.equal(deployment?.metadata['name'], 'shop-scaffold', '--release-name is .Release.Name')
  t.equal(deployment?.metadata['namespace'], undefined, 'no namespace defaulting: that belongs to a TemplateInstance')
  const spec = deployment?.spec as {
    replicas: number
    template: {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> }
      spec: { containers: { image: string; imagePullPolicy: string }[] }
    }
  }
  t.equal(spec.replicas, 5, '--set wins over the -f files')
  t.equal(spec.template.spec.containers[0]?.image, 'nginx:second-file', 'a later -f file wins')
  t.equal(spec.template.spec.containers[0]?.imagePullPolicy, 'Never', 'maps of -f files merge')
  t.match(spec.template.metadata.labels, { tier: 'web', version: '10' })
  t.equal(spec.template.metadata.annotations['note'], 'from --set-file')
  t.match(r.err, /note: scaffold\/templates\/tests\/test-connection\.yaml is not applied: test hook \(test\): chart tests are not run/)
  t.match(r.err, /note: \.Capabilities are Helm's defaults without a cluster \(Kubernetes v1\.37\.0/)
})

t.test('--kube-version and --api-versions set .Capabilities; -a takes several comma-separated', async (t) => {
  const r = await render([
    '--chart',
    chart('caps'),
    '--kube-version',
    '1.28.4-gke.100',
    '-a',
    'monitoring.coreos.com/v1,monitoring.coreos.com/v1/ServiceMonitor',
    '--helm-version',
    'v4',
  ])
  t.equal(r.code, 0, r.err)
  t.match(r.docs[0]?.data, { version: 'v1.28.4-gke.100', str: 'v1.28.4', hasMonitoring: 'true', hasGvk: 'true', hasApps: 'true' })
  t.match(
    r.err,
    /note: \.Capabilities without a cluster: Kubernetes 1\.28\.4-gke\.100 \(--kube-version\), Helm's built-in API versions and 2 from --api-versions/,
  )
})

t.test('Secrets are masked unless --show-secrets', async (t) => {
  const masked = await render(['--chart', chart('copies'), '--set', 'x=2'])
  t.equal(masked.code, 0, masked.err)
  const shown = await render([
    '--chart',
    chart('tplvalues'),
    '--show-secrets',
    '--set',
    'extraObjects[0].apiVersion=v1,extraObjects[0].kind=Secret,extraObjects[0].metadata.name=s,extraObjects[0].stringData.k=v',
  ])
  t.equal(shown.code, 0, shown.err)
  t.match(
    shown.docs.find((d) => d.kind === 'Secret'),
    { stringData: { k: 'v' } },
  )
  const hidden = await render([
    '--chart',
    chart('tplvalues'),
    '--set',
    'extraObjects[0].apiVersion=v1,extraObjects[0].kind=Secret,extraObjects[0].metadata.name=s,extraObjects[0].stringData.k=v',
  ])
  t.match(
    hidden.docs.find((d) => d.kind === 'Secret'),
    { stringData: { k: '*****' } },
  )
})

interface Failure {
  readonly name: string
  readonly args: string[]
  readonly code: number
  readonly err: RegExp
}

const failures: Failure[] = [
  {
    name: 'a malformed --set',
    args: ['--chart', chart('caps'), '--set', 'a,b=1'],
    code: 1,
    err: /failed parsing --set data: key "a" has no value \(cannot end with ,\)/,
  },
  {
    name: 'a missing --set-file',
    args: ['--chart', chart('caps'), '--set-file', 'a=/nonexistent/x'],
    code: 1,
    err: /failed parsing --set-file data: open \/nonexistent\/x: no such file or directory/,
  },
  { name: 'a values file that is not YAML', args: ['--chart', chart('caps'), '-f', file('a: [')], code: 1, err: /failed to parse .*: / },
  { name: 'a chart that does not load', args: ['--chart', join(dir, 'nope')], code: 1, err: /template-sync render: .*nope/ },
  {
    name: 'a render error, with the engine code',
    args: ['--chart', chart('validation')],
    code: 1,
    err: /template-sync render: TemplateExec: execution error at \(validation\/templates\/statefulset\.yaml:1:4\): \nVALUES VALIDATION:/,
  },
  {
    name: 'an invalid --kube-version',
    args: ['--chart', chart('caps'), '--kube-version', 'one.two'],
    code: 2,
    err: /invalid kube version 'one\.two': could not parse "one\.two" as version/,
  },
  {
    name: 'an unknown --helm-version',
    args: ['--chart', chart('caps'), '--helm-version', 'v2'],
    code: 2,
    err: /--helm-version "v2": expected v3 or v4/,
  },
  {
    name: '--plain-http without a Template',
    args: ['--chart', chart('caps'), '--plain-http'],
    code: 2,
    err: /--plain-http applies to a Template's oci:\/\/ repository/,
  },
  {
    name: 'values flags with a Template',
    args: ['ns/name', '--chart', chart('caps'), '-f', 'x.yaml', '--set-string', 'a=b'],
    code: 2,
    err: /--values, --set-string: only with --chart alone .*valuesTemplate/,
  },
  {
    name: 'neither a Template nor a chart',
    args: ['--set', 'a=b'],
    code: 2,
    err: /give NAMESPACE\/NAME, both --template and --instance, or --chart PATH alone/,
  },
]

for (const f of failures) {
  t.test(`fails: ${f.name}`, async (t) => {
    const r = await render(f.args)
    t.equal(r.code, f.code, r.err)
    t.match(r.err, f.err)
  })
}

// --- Against the real helm ---------------------------------------------------

const run = promisify(execFile)
const missing = (['v3', 'v4'] as const).map(helmBinary).filter((b) => !existsSync(b))

/** helm template's objects (hooks left out, as render leaves them out), or its error. */
async function helmObjects(major: 'v3' | 'v4', args: string[]): Promise<unknown[]> {
  const { stdout } = await run(helmBinary(major), ['template', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: dir },
    maxBuffer: 1 << 26,
  })
  const parsed = parseHelmOutput(stdout)
  if (!parsed.ok) throw new Error('helm output did not parse')
  return parsed.documents.flatMap((d) => d.objects)
}

interface OracleCase {
  readonly name: string
  readonly chart: string
  /** Flags both commands take with the same meaning. */
  readonly flags: string[]
  /** helm template's release name (ours: --release-name). */
  readonly release?: string
  /** Only for helm: render includes crds/ always, as the operator applies them. */
  readonly helmOnly?: string[]
}

const setFile = join(dir, 'set-file.txt')
writeFileSync(setFile, 'line one\nline two\n')
const valuesFile = file(
  'replicaCount: 3\nimage: {tag: "1.27"}\ningress: {enabled: true, hosts: [{host: a.example.com, paths: [{path: /, pathType: Prefix}]}]}\n',
)

const oracleCases: OracleCase[] = [
  {
    name: 'the issue command: --kube-version 1.30.0 --api-versions monitoring.coreos.com/v1',
    chart: 'capidioms',
    flags: ['--kube-version', '1.30.0', '--api-versions', 'monitoring.coreos.com/v1'],
  },
  {
    name: 'API versions with kinds, comma-separated, and an old Kubernetes',
    chart: 'capidioms',
    flags: [
      '--kube-version',
      'v1.20.4',
      '-a',
      'monitoring.coreos.com/v1,monitoring.coreos.com/v1/PrometheusRule',
      '--set',
      'metrics.prometheusRule.enabled=true',
    ],
  },
  {
    name: 'values from -f, --set (int64), --set-string and --set-file, a release name and namespace',
    chart: 'scaffold',
    flags: [
      '--kube-version',
      '1.29.0',
      '-f',
      valuesFile,
      '--set',
      'replicaCount=7,podLabels.big=1234567,autoscaling.enabled=true,autoscaling.maxReplicas=12',
      '--set-string',
      'podLabels.version=007',
      '--set-file',
      `podAnnotations.lines=${setFile}`,
      '--namespace',
      'shop',
    ],
    release: 'web',
  },
  { name: 'CRDs first (helm with --include-crds)', chart: 'crds', flags: ['--set', 'operator.replicas=2'], helmOnly: ['--include-crds'] },
]

if (missing.length > 0) {
  t.fail(`${missing.join(', ')} not found: build them with "bash test/cluster/build.sh helm helm4" (needs Go)`)
} else {
  for (const c of oracleCases) {
    for (const major of ['v3', 'v4'] as const) {
      t.test(`as helm ${major} template: ${c.name}`, async (t) => {
        const release = c.release ?? 'release-name'
        const want = await helmObjects(major, [release, chart(c.chart), ...c.flags, ...(c.helmOnly ?? [])])
        const ours = await render([
          '--chart',
          chart(c.chart),
          ...c.flags,
          '--release-name',
          release,
          '--helm-version',
          major,
          '--show-secrets',
        ])
        t.equal(ours.code, 0, ours.err)
        t.ok(want.length > 0, `helm rendered ${want.length} objects`)
        t.strictSame(ours.docs, want, 'the same objects in the same order')
      })
    }
  }
}
