// Helm Templates end to end on the real API server: charts made and
// published by the real helm (`helm package`, `helm repo index` served over
// HTTP with basic auth, `helm push` to the test OCI registry), rendered by the
// reconciler running in this process as its own user, and the strict webhook
// in this process judging edits by the admin user. Every sync-mode behaviour
// of gotemplate Templates is checked on chart objects: stamping, strict
// denial, revert, off freeze, a chart upgrade that prunes, outputs; and the
// errors of valuesTemplate and chart templates with their lines.

import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import pino from 'pino'
import { LABEL_INSTANCE_UID, LABEL_SYNC_MODE, type SyncMode } from '../../src/api/names.ts'
import type { Template, TemplateSpec } from '../../src/api/template.ts'
import { CONTENT_MERGE, KubeClient } from '../../src/kube/client.ts'
import { KubeApiError } from '../../src/kube/errors.ts'
import type { IdentifiedObject } from '../../src/api/meta.ts'
import { startWebhookServer } from '../../src/webhook/server.ts'
import { runRender } from '../../src/cli/render.ts'
import { parseYamlStream } from '../../src/encoding/yaml.ts'
import { adminClient, clusterInfo, eventually, freshNamespace, issueServingCert } from './helpers/cluster.ts'
import { helmTool, REPO_PASSWORD, REPO_USER, startChartServer, startRegistry, writeChart } from './helpers/helm-repos.ts'
import { userKubeconfig } from './helpers/identity.ts'
import {
  createInstance,
  createTemplate,
  installCrds,
  instancePath,
  startManager,
  templatePath,
  waitForCondition,
  waitForTemplateCondition,
} from './helpers/operator.ts'
import { installValidatingWebhook, waitUntilCalled } from './helpers/webhook.ts'

const admin = adminClient()
t.teardown(() => admin.close())
await installCrds(admin)

// ---- charts, made and published by helm -------------------------------------

const tool = helmTool(t, 'ts-helm-templates')
const CM = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-cfg
  labels: {app: {{ .Chart.Name }}}
data:
  color: {{ .Values.color }}
  release: {{ .Release.Name }}
  namespace: {{ .Release.Namespace }}
  kube: {{ .Capabilities.KubeVersion.Version }}
  servesInstances: {{ .Capabilities.APIVersions.Has "templates.v2.stakater.com/v2alpha1/TemplateInstance" | quote }}
`
const SVC = `apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}
spec:
  selector: {app: {{ .Release.Name }}}
  ports: [{name: http, port: 80}]
`
const HOOK = `apiVersion: v1
kind: Pod
metadata:
  name: {{ .Release.Name }}-test
  annotations: {"helm.sh/hook": test}
spec:
  containers: [{name: t, image: busybox}]
`
const common = {
  'values.yaml': 'color: blue\n',
  'values.schema.json': '{"properties":{"color":{"enum":["blue","green","red"]}}}',
  'templates/cm.yaml': CM,
  'templates/svc.yaml': SVC,
  'templates/tests/hook.yaml': HOOK,
  'templates/NOTES.txt': 'installed {{ .Release.Name }}\n',
}
const repoDir = join(tool.work, 'repo')
for (const [version, files] of [
  ['1.0.0', { ...common, 'templates/extra.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-extra\n' }],
  ['1.1.0', { ...common, 'templates/new.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-new\n' }],
] as const) {
  tool.helm('package', writeChart(tool.work, 'app', version, files), '-d', repoDir)
}
tool.helm(
  'package',
  writeChart(tool.work, 'broken', '0.1.0', {
    'templates/cm.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  x: {{ required "colorx is required" .Values.colorx }}\n',
  }),
  '-d',
  repoDir,
)
tool.helm('repo', 'index', repoDir)

const repo = await startChartServer(t)
for (const f of ['index.yaml', 'app-1.0.0.tgz', 'app-1.1.0.tgz', 'broken-0.1.0.tgz'])
  repo.files.set(`/charts/${f}`, readFileSync(join(repoDir, f)))
const HTTP_URL = `${repo.url}/charts`

const registry = await startRegistry(t, 'basic')
for (const f of ['app-1.0.0.tgz', 'app-1.1.0.tgz']) {
  tool.helm('push', join(repoDir, f), `oci://${registry.host}/charts`, '--plain-http', '--username', REPO_USER, '--password', REPO_PASSWORD)
}
const OCI_URL = `oci://${registry.host}/charts`

// ---- the webhook and the reconciler, each with its own identity ---------------

const RECONCILER_USER = `template-sync-helm-reconciler-${process.pid}`
const reconcilerClient = KubeClient.fromFile(userKubeconfig(RECONCILER_USER), 'template-sync')
t.teardown(() => reconcilerClient.close())

const cert = issueServingCert(['127.0.0.1'])
const webhookClient = adminClient('template-sync-webhook-test')
t.teardown(() => webhookClient.close())
const webhook = await startWebhookServer({
  client: webhookClient,
  log: pino({ level: 'silent' }),
  config: { operatorUsernames: [RECONCILER_USER] },
  certDir: cert.dir,
  host: '127.0.0.1',
  port: 0,
  healthHost: '127.0.0.1',
  healthPort: 0,
  drainMs: 0,
})
t.teardown(() => webhook.shutdown())
await webhook.synced()
const removeWebhook = await installValidatingWebhook(admin, {
  name: `ts-helm-strict-${process.pid}`,
  url: `${webhook.url}/validate`,
  caPem: cert.ca,
  rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['UPDATE', 'DELETE'], scope: 'Namespaced' }],
  objectSelector: { matchLabels: { [LABEL_SYNC_MODE]: 'strict' } },
  failurePolicy: 'Fail',
  timeoutSeconds: 10,
})
t.teardown(removeWebhook)

const running = await startManager({
  client: reconcilerClient,
  helm: { plainHttpRegistries: [registry.host], retryMs: 1000 },
})
t.teardown(() => running.stop())

// ---- fixtures -----------------------------------------------------------------

const cmPath = (ns: string, name: string): string => `/api/v1/namespaces/${ns}/configmaps/${name}`
const getCm = (ns: string, name: string) => admin.getOrUndefined<IdentifiedObject & { data?: Record<string, string> }>(cmPath(ns, name))
const setColor = (ns: string, name: string, color: string) =>
  admin.request('PATCH', cmPath(ns, name), {
    body: { data: { color } },
    contentType: CONTENT_MERGE,
    query: { fieldManager: 'kubectl-edit' },
  })

interface Setup {
  /** Namespace of the Template and its auth Secret. */
  platform: string
  /** Namespace of the instance. */
  team: string
}

async function namespaces(tt: Parameters<typeof freshNamespace>[0]): Promise<Setup> {
  const platform = await freshNamespace(tt, admin, 'helm-p')
  const team = await freshNamespace(tt, admin, 'helm-t')
  await admin.request('POST', `/api/v1/namespaces/${platform}/secrets`, {
    body: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'repo-auth' },
      stringData: { username: REPO_USER, password: REPO_PASSWORD },
    },
  })
  return { platform, team }
}

function helmSpec(
  s: Setup,
  opts: { url?: string; name?: string; version?: string; mode?: SyncMode; valuesTemplate?: string },
): TemplateSpec {
  return {
    targetNamespaces: { explicit: { allow: { literal: [s.team] } } },
    sync: { mode: opts.mode ?? 'revert' },
    parameters: [{ name: 'color', value: 'green' }],
    helm: {
      chart: {
        repository: {
          url: opts.url ?? HTTP_URL,
          name: opts.name ?? 'app',
          version: opts.version ?? '1.0.0',
          auth: { secretRef: { name: 'repo-auth' } },
        },
      },
      ...(opts.valuesTemplate === undefined ? {} : { valuesTemplate: opts.valuesTemplate }),
    },
  }
}

// ---- tests ----------------------------------------------------------------------

t.test('strict: a chart from the OCI registry is applied stamped, an edit is denied, outputs come from a chart object', async (t) => {
  const s = await namespaces(t)
  const spec = helmSpec(s, { url: OCI_URL, mode: 'strict', valuesTemplate: 'color: {{ .parameters.color }}' })
  spec.outputs = [
    {
      name: 'service',
      from: { apiVersion: 'v1', kind: 'Service', name: '{.instance.name}' },
      fields: [{ name: 'clusterIP', jsonPath: '{.spec.clusterIP}' }],
    },
  ]
  await createTemplate(admin, s.platform, 'app', spec)
  const inst = await createInstance(admin, s.team, 'web', { templateRef: { name: 'app', namespace: s.platform } })
  const ready = await waitForCondition(admin, s.team, 'web', 'Ready', 'True')
  const tpl = await waitForTemplateCondition(admin, s.platform, 'app', 'DryRunRendered', 'True', 'RenderSucceeded')
  t.equal(tpl.spec.helm?.version, 'v3', 'the API server stored the default Helm major')
  const cond = (type: string) => tpl.status?.conditions?.find((c) => c.type === type)
  t.match(cond('SourceAccessible'), {
    status: 'True',
    reason: 'RepositoryReachable',
    message: new RegExp(`^chart app 1\\.0\\.0 from oci://${registry.host}/charts: fetched \\(sha256:[0-9a-f]{64}\\)$`),
  })
  t.match(cond('Valid'), { status: 'True', reason: 'ValidationSucceeded' })
  t.equal(tpl.status?.phase, 'Valid')

  const cm = await getCm(s.team, 'web-cfg')
  t.strictSame(
    cm?.data,
    { color: 'green', release: 'web', namespace: s.team, kube: 'v1.37.2', servesInstances: 'true' },
    "valuesTemplate over the chart values, release name = instance name, the cluster's version and served kinds in .Capabilities",
  )
  t.equal(cm?.metadata.labels?.[LABEL_INSTANCE_UID], inst.metadata?.uid)
  t.equal(cm?.metadata.labels?.[LABEL_SYNC_MODE], 'strict')
  t.ok(await getCm(s.team, 'web-extra'), 'every chart object is applied')
  t.equal(await admin.getOrUndefined(`/api/v1/namespaces/${s.team}/pods/web-test`), undefined, 'the test hook is not applied')
  t.match(ready.status?.renderedResources, [
    { kind: 'ConfigMap', name: 'web-cfg' },
    { kind: 'ConfigMap', name: 'web-extra' },
    { kind: 'Service', name: 'web' },
  ])
  const outputs = await eventually('outputs from the Service', async () => {
    const i = await admin.get<{ status?: { outputs?: Record<string, Record<string, string>> } }>(instancePath(s.team, 'web'))
    return i.status?.outputs?.['clusterIP']?.['service'] ? i.status.outputs : undefined
  })
  const svc = await admin.get<{ spec: { clusterIP: string } }>(`/api/v1/namespaces/${s.team}/services/web`)
  t.strictSame(outputs, { clusterIP: { service: svc.spec.clusterIP } })

  // The API server loads webhook configurations asynchronously: probe with dry-runs until one is judged.
  let judged = false
  await waitUntilCalled(
    async () => {
      try {
        await admin.request('PATCH', cmPath(s.team, 'web-cfg'), {
          body: { data: { color: 'red' } },
          contentType: CONTENT_MERGE,
          query: { dryRun: 'All' },
        })
      } catch (e) {
        if (e instanceof KubeApiError && e.apiMessage.includes('denied the request')) judged = true
      }
    },
    () => judged,
  )
  const denied = await setColor(s.team, 'web-cfg', 'red').then(
    () => undefined,
    (e: unknown) => e,
  )
  t.ok(denied instanceof KubeApiError, 'the edit is refused')
  t.match((denied as KubeApiError).apiMessage, new RegExp(`denied the request: .*TemplateInstance ${s.team}/web`))
  t.equal((await getCm(s.team, 'web-cfg'))?.data?.['color'], 'green')

  // template-sync render of the live instance: the auth Secret and .Capabilities from the cluster.
  let out = ''
  let err = ''
  const io = { stdout: { write: (x: string) => (out += x) }, stderr: { write: (x: string) => (err += x) } }
  t.equal(await runRender([`${s.team}/web`, '--kubeconfig', clusterInfo().kubeconfig, '--plain-http'], {}, io), 0, err)
  const docs = parseYamlStream(out).map((d) => d.value as IdentifiedObject)
  t.strictSame(
    docs.map((d) => `${d.kind} ${d.metadata.name}`),
    ['ConfigMap web-cfg', 'ConfigMap web-extra', 'Service web'],
  )
  t.strictSame(docs[0]?.['data'], { color: 'green', release: 'web', namespace: s.team, kube: 'v1.37.2', servesInstances: 'true' })
  t.equal(docs[0]?.metadata.labels?.[LABEL_INSTANCE_UID], inst.metadata?.uid)
  t.notMatch(err, /Capabilities are Helm's defaults/, "the cluster's capabilities")
})

t.test('revert over an HTTP repository: drift is corrected; a version bump adds and prunes objects and is fetched once', async (t) => {
  const s = await namespaces(t)
  await createTemplate(admin, s.platform, 'app', helmSpec(s, { mode: 'revert' }))
  await createInstance(admin, s.team, 'web', { templateRef: { name: 'app', namespace: s.platform } })
  await waitForCondition(admin, s.team, 'web', 'Synced', 'True', 'SyncActive')
  t.equal((await getCm(s.team, 'web-cfg'))?.data?.['color'], 'blue', "no valuesTemplate: the chart's values")

  await setColor(s.team, 'web-cfg', 'red')
  await eventually('drift reverted', async () => ((await getCm(s.team, 'web-cfg'))?.data?.['color'] === 'blue' ? true : undefined))

  const before = repo.requests.length
  await admin.request('PATCH', templatePath(s.platform, 'app'), {
    body: { spec: { helm: { chart: { repository: { version: '1.1.0' } } } } },
    contentType: CONTENT_MERGE,
  })
  await eventually('the new object of 1.1.0', () => getCm(s.team, 'web-new'))
  await eventually('the object 1.1.0 dropped is pruned', async () => ((await getCm(s.team, 'web-extra')) === undefined ? true : undefined))
  t.ok(
    running.events.some((e) => e.reason === 'Pruned' && e.message.includes('web-extra')),
    'a Pruned event',
  )
  // The status of the pass that pruned is written after the prune.
  const done = await eventually('status without the pruned object', async () => {
    const i = await waitForCondition(admin, s.team, 'web', 'Ready', 'True')
    return i.status?.renderedResources?.some((r) => r.name === 'web-new') ? i : undefined
  })
  t.notOk(done.status?.renderedResources?.some((r) => r.name === 'web-extra'))
  const fetches = repo.requests.slice(before).filter((p) => p.endsWith('.tgz'))
  t.strictSame(fetches, ['/charts/app-1.1.0.tgz'], 'the new version is downloaded once, by the Template and its instance together')

  // Force a new render of the same version: nothing is fetched again.
  const settled = repo.requests.length
  await admin.request('PATCH', instancePath(s.team, 'web'), { body: { metadata: { labels: { poke: 'yes' } } }, contentType: CONTENT_MERGE })
  await eventually('the instance rendered again', async () => {
    const i = await admin.get<{ metadata: { generation: number }; status?: { conditions?: { type: string; status: string }[] } }>(
      instancePath(s.team, 'web'),
    )
    return i.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? true : undefined
  })
  await new Promise((r) => setTimeout(r, 500))
  t.strictSame(repo.requests.slice(settled), [], 'a cached chart version is never fetched again')
})

t.test('off: chart objects are applied once, then frozen', async (t) => {
  const s = await namespaces(t)
  await createTemplate(admin, s.platform, 'app', helmSpec(s, { mode: 'off', valuesTemplate: 'color: {{ .parameters.color }}' }))
  await createInstance(admin, s.team, 'web', { templateRef: { name: 'app', namespace: s.platform } })
  await waitForCondition(admin, s.team, 'web', 'Synced', 'False', 'Frozen')
  await setColor(s.team, 'web-cfg', 'red')
  await admin.request('PATCH', templatePath(s.platform, 'app'), {
    body: { spec: { helm: { valuesTemplate: 'color: blue' } } },
    contentType: CONTENT_MERGE,
  })
  // Give the reconciler time to act on both changes; a frozen instance must not.
  await waitForTemplateCondition(admin, s.platform, 'app', 'DryRunRendered', 'True')
  await new Promise((r) => setTimeout(r, 1500))
  t.equal((await getCm(s.team, 'web-cfg'))?.data?.['color'], 'red', 'neither the edit is reverted nor the Template change applied')
  t.equal((await getCm(s.team, 'web-cfg'))?.metadata.finalizers, undefined, 'no finalizer holds a frozen object')
})

t.test('valuesTemplate errors are reported on the instance with the line', async (t) => {
  const s = await namespaces(t)
  const cases: [string, string, RegExp][] = [
    [
      'exec',
      'color: green\nsize: {{ .parameters.missing.x }}\n',
      /^template: spec\.helm\.valuesTemplate:2:\d+: executing "spec\.helm\.valuesTemplate" at <\.parameters\.missing\.x>/,
    ],
    ['list', '# values\n- green\n', /^spec\.helm\.valuesTemplate must render a YAML mapping; it rendered a list at line 2$/],
    ['yaml', 'color: green\n  size: 2\n', /^spec\.helm\.valuesTemplate rendered invalid YAML: line 2: /],
    [
      'schema',
      'color: purple\n',
      /^chart app 1\.0\.0 from http:\/\/127\.0\.0\.1:\d+\/charts: values don't meet the specifications of the schema\(s\) in the following chart\(s\):\napp:/,
    ],
  ]
  for (const [name, valuesTemplate] of cases) {
    await createTemplate(admin, s.platform, name, { ...helmSpec(s, { valuesTemplate }), parameters: [{ name: 'color' }] })
    await createInstance(admin, s.team, name, { templateRef: { name, namespace: s.platform } })
  }
  for (const [name, , message] of cases) {
    const i = await waitForCondition(admin, s.team, name, 'Rendered', 'False', 'TemplateExecutionFailed')
    t.match(i.status?.conditions?.find((c) => c.type === 'Rendered')?.message, message, name)
    t.equal(i.status?.phase, 'Failed')
  }

  await createTemplate(admin, s.platform, 'parse', helmSpec(s, { valuesTemplate: 'color: green\n{{ end }}\n' }))
  const invalid = await waitForTemplateCondition(admin, s.platform, 'parse', 'Valid', 'False', 'ValidationFailed')
  t.equal(invalid.status?.conditions?.find((c) => c.type === 'Valid')?.message, 'template: spec.helm.valuesTemplate:2: unexpected {{end}}')
  t.equal(invalid.status?.phase, 'Invalid')

  await createTemplate(admin, s.platform, 'schema-default', {
    ...helmSpec(s, { valuesTemplate: 'color: {{ .parameters.color }}' }),
    parameters: [{ name: 'color', value: 'purple' }],
  })
  const bad = await waitForTemplateCondition(admin, s.platform, 'schema-default', 'Valid', 'False', 'ValidationFailed')
  t.match(
    bad.status?.conditions?.find((c) => c.type === 'Valid')?.message,
    /values don't meet the specifications of the schema/,
    'the dry run with literal defaults finds a schema violation',
  )
})

t.test('a chart template error names the repository, chart, version, template file and line', async (t) => {
  const s = await namespaces(t)
  await createTemplate(admin, s.platform, 'broken', helmSpec(s, { name: 'broken', version: '0.1.0' }))
  await createInstance(admin, s.team, 'web', { templateRef: { name: 'broken', namespace: s.platform } })
  const i = await waitForCondition(admin, s.team, 'web', 'Rendered', 'False', 'TemplateExecutionFailed')
  t.match(
    i.status?.conditions?.find((c) => c.type === 'Rendered')?.message,
    new RegExp(`^chart broken 0\\.1\\.0 from ${HTTP_URL.replaceAll('.', '\\.')}: .*broken/templates/cm\\.yaml:6:\\d+.*colorx is required`),
  )
  const tpl = await waitForTemplateCondition(admin, s.platform, 'broken', 'DryRunRendered', 'False', 'RenderFailed')
  t.match(tpl.status?.conditions?.find((c) => c.type === 'DryRunRendered')?.message, /broken\/templates\/cm\.yaml:6/)
})

t.test('a version the repository does not have makes the Template invalid, and the instance says so', async (t) => {
  const s = await namespaces(t)
  await createTemplate(admin, s.platform, 'app', helmSpec(s, { version: '9.9.9' }))
  await createInstance(admin, s.team, 'web', { templateRef: { name: 'app', namespace: s.platform } })
  const tpl = await waitForTemplateCondition(admin, s.platform, 'app', 'Valid', 'False', 'ValidationFailed')
  t.match(
    tpl.status?.conditions?.find((c) => c.type === 'Valid')?.message,
    new RegExp(`^${HTTP_URL.replaceAll('.', '\\.')} chart app version 9\\.9\\.9: the repository index has no version 9\\.9\\.9 of app`),
  )
  t.match(
    tpl.status?.conditions?.find((c) => c.type === 'SourceAccessible'),
    { status: 'True', reason: 'RepositoryReachable' },
  )
  const i = await waitForCondition(admin, s.team, 'web', 'Rendered', 'False', 'ChartUnavailable')
  t.match(
    i.status?.conditions?.find((c) => c.type === 'Ready'),
    { status: 'False', reason: 'ChartUnavailable' },
  )
})

t.test('a Template switched from helm to gotemplate drops SourceAccessible', async (t) => {
  const s = await namespaces(t)
  await createTemplate(admin, s.platform, 'app', helmSpec(s, {}))
  await waitForTemplateCondition(admin, s.platform, 'app', 'SourceAccessible', 'True')
  await admin.request('PATCH', templatePath(s.platform, 'app'), {
    body: { spec: { helm: null, gotemplate: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n' } },
    contentType: CONTENT_MERGE,
  })
  await eventually('SourceAccessible removed', async () => {
    const got = await admin.get<Template>(templatePath(s.platform, 'app'))
    return got.spec.gotemplate !== undefined &&
      got.status?.conditions?.some((c) => c.type === 'Valid' && c.observedGeneration === got.metadata?.generation) &&
      !got.status.conditions.some((c) => c.type === 'SourceAccessible')
      ? true
      : undefined
  })
})
