// Chart sources as a Helm Template's conditions show them, on the real API
// server with the reconciler in this process: a repository that is down and
// comes back (SourceAccessible, retried), a wrong credential (reported, never
// leaked into status, events or logs), and hostile archives and charts (path
// traversal, a link out of the chart, a 1 GiB-expanding archive, a template
// that loops forever), each a clear error while the reconciler goes on
// reconciling other instances.

import t from 'tap'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import pino from 'pino'
import type { TemplateSpec } from '../../src/api/template.ts'
import { CONTENT_MERGE } from '../../src/kube/client.ts'
import { bombTgz, CHART_YAML, tgz } from '../unit/helm-fixtures.ts'
import { adminClient, eventually, freshNamespace } from './helpers/cluster.ts'
import { type ChartServer, helmTool, REPO_PASSWORD, REPO_USER, startChartServer, writeChart } from './helpers/helm-repos.ts'
import {
  configMapTemplate,
  createInstance,
  createTemplate,
  installCrds,
  instancePath,
  startManager,
  templatePath,
  waitForCondition,
  waitForTemplateCondition,
} from './helpers/operator.ts'

const admin = adminClient()
t.teardown(() => admin.close())
await installCrds(admin)

const tool = helmTool(t, 'ts-helm-template-sources')
tool.helm(
  'package',
  writeChart(tool.work, 'app', '1.0.0', {
    'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cfg\ndata:\n  color: blue\n',
  }),
  '-d',
  join(tool.work, 'repo'),
)
tool.helm('repo', 'index', join(tool.work, 'repo'))
const appFiles = {
  '/charts/index.yaml': readFileSync(join(tool.work, 'repo/index.yaml')),
  '/charts/app-1.0.0.tgz': readFileSync(join(tool.work, 'repo/app-1.0.0.tgz')),
}

// Everything the reconciler logs, at every level, to look for secrets in.
const logLines: string[] = []
const logSink = new Writable({
  write(chunk: Buffer, _enc, done): void {
    logLines.push(chunk.toString('utf8'))
    done()
  },
})
const RENDER_TIME_LIMIT_MS = 3000
const running = await startManager({
  log: pino({ level: 'trace' }, logSink),
  helm: { retryMs: 1000, limits: { timeMs: RENDER_TIME_LIMIT_MS } },
})
t.teardown(() => running.stop())

interface Setup {
  platform: string
  team: string
}

async function namespaces(tt: Parameters<typeof freshNamespace>[0], password = REPO_PASSWORD): Promise<Setup> {
  const platform = await freshNamespace(tt, admin, 'helm-p')
  const team = await freshNamespace(tt, admin, 'helm-t')
  await admin.request('POST', `/api/v1/namespaces/${platform}/secrets`, {
    body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'repo-auth' }, stringData: { username: REPO_USER, password } },
  })
  return { platform, team }
}

function helmSpec(s: Setup, url: string, name = 'app', version = '1.0.0'): TemplateSpec {
  return {
    targetNamespaces: { explicit: { allow: { literal: [s.team] } } },
    sync: { mode: 'revert' },
    helm: { chart: { repository: { url, name, version, auth: { secretRef: { name: 'repo-auth' } } } } },
  }
}

const message = (o: { status?: { conditions?: { type: string; message: string }[] } } | undefined, type: string): string =>
  o?.status?.conditions?.find((c) => c.type === type)?.message ?? ''

t.test('an unreachable repository is SourceAccessible=False, retried, and recovers when it answers again', async (t) => {
  const server = await startChartServer(t)
  for (const [p, b] of Object.entries(appFiles)) server.files.set(p, b)
  await server.stop()
  const s = await namespaces(t)
  const url = `${server.url}/charts`
  await createTemplate(admin, s.platform, 'app', helmSpec(s, url))
  await createInstance(admin, s.team, 'web', { templateRef: { name: 'app', namespace: s.platform } })
  const down = await waitForTemplateCondition(admin, s.platform, 'app', 'SourceAccessible', 'False', 'RepositoryUnreachable')
  t.match(message(down, 'SourceAccessible'), new RegExp(`^${url.replaceAll('.', '\\.')} chart app version 1\\.0\\.0: .*ECONNREFUSED`))
  t.equal(down.status?.phase, 'Error')
  t.match(
    down.status?.conditions?.find((c) => c.type === 'Valid'),
    { status: 'True' },
    'the spec itself is fine',
  )
  const waiting = await waitForCondition(admin, s.team, 'web', 'Rendered', 'False', 'ChartUnavailable')
  t.equal(message(waiting, 'Rendered'), message(down, 'SourceAccessible'))
  t.ok(
    running.events.some((e) => e.type === 'Warning' && e.reason === 'RepositoryUnreachable'),
    'a Warning event on the Template',
  )

  await server.start()
  const up = await waitForTemplateCondition(admin, s.platform, 'app', 'SourceAccessible', 'True', 'RepositoryReachable', 30_000)
  t.equal(up.status?.phase, 'Valid')
  await waitForCondition(admin, s.team, 'web', 'Ready', 'True', undefined, 30_000)
  t.ok(await admin.getOrUndefined(`/api/v1/namespaces/${s.team}/configmaps/web-cfg`), 'the chart is applied once the repository answers')
})

t.test('a wrong credential is reported without the credential, and a corrected Secret is picked up', async (t) => {
  const server = await startChartServer(t)
  for (const [p, b] of Object.entries(appFiles)) server.files.set(p, b)
  const WRONG = 'wr0ng-Passw0rd-7c1d'
  const s = await namespaces(t, WRONG)
  await createTemplate(admin, s.platform, 'app', helmSpec(s, `${server.url}/charts`))
  await createInstance(admin, s.team, 'web', { templateRef: { name: 'app', namespace: s.platform } })
  const tpl = await waitForTemplateCondition(admin, s.platform, 'app', 'SourceAccessible', 'False', 'RepositoryUnreachable')
  t.match(message(tpl, 'SourceAccessible'), /chart app version 1\.0\.0: .*unauthorized \(HTTP 401\)/)
  const inst = await waitForCondition(admin, s.team, 'web', 'Rendered', 'False', 'ChartUnavailable')
  const everything = [JSON.stringify(tpl), JSON.stringify(inst), JSON.stringify(running.events), ...logLines]
  const basic = Buffer.from(`${REPO_USER}:${WRONG}`).toString('base64')
  for (const secret of [WRONG, Buffer.from(WRONG).toString('base64'), basic]) {
    t.notOk(
      everything.some((text) => text.includes(secret)),
      `no status, event or log line holds ${secret === WRONG ? 'the password' : 'an encoding of it'}`,
    )
  }
  t.ok(logLines.length > 0, 'the reconciler did log (the check above looked at something)')

  await admin.request('PATCH', `/api/v1/namespaces/${s.platform}/secrets/repo-auth`, {
    body: { stringData: { password: REPO_PASSWORD } },
    contentType: CONTENT_MERGE,
  })
  await waitForTemplateCondition(admin, s.platform, 'app', 'SourceAccessible', 'True', 'RepositoryReachable', 30_000)
  await waitForCondition(admin, s.team, 'web', 'Ready', 'True', undefined, 30_000)
})

// ---- hostile charts ------------------------------------------------------------

/** Serves one archive as demo 0.1.0 under /<path>/, with an index that announces its digest. */
function publish(server: ChartServer, path: string, archive: Buffer): string {
  const digest = createHash('sha256').update(archive).digest('hex')
  const index = `apiVersion: v1\nentries:\n  demo:\n    - apiVersion: v2\n      name: demo\n      version: 0.1.0\n      urls: [demo-0.1.0.tgz]\n      digest: ${digest}\n`
  server.files.set(`/${path}/index.yaml`, Buffer.from(index))
  server.files.set(`/${path}/demo-0.1.0.tgz`, archive)
  return `${server.url}/${path}`
}

t.test('hostile archives are refused, each with a clear error on the Template and its instance', async (t) => {
  const server = await startChartServer(t)
  const s = await namespaces(t)
  const cases: [string, Buffer, RegExp][] = [
    [
      'traversal',
      tgz([
        { name: 'demo/Chart.yaml', data: CHART_YAML },
        { name: 'demo/../../etc/evil.yaml', data: 'kind: ConfigMap\n' },
      ]),
      /the chart archive does not load: .*etc\/evil\.yaml/,
    ],
    [
      'link',
      tgz([
        { name: 'demo/Chart.yaml', data: CHART_YAML },
        { name: 'demo/templates/passwd.yaml', type: '2', linkName: '/etc/passwd' },
      ]),
      /the chart archive does not load: .*demo\/templates\/passwd\.yaml/,
    ],
    ['bomb', await bombTgz(1024 * 1024 * 1024), /the chart archive does not load: .*demo\/templates\/bomb\.yaml/],
  ]
  for (const [name, archive] of cases) {
    await createTemplate(admin, s.platform, name, helmSpec(s, publish(server, name, archive), 'demo', '0.1.0'))
    await createInstance(admin, s.team, name, { templateRef: { name, namespace: s.platform } })
  }
  for (const [name, , why] of cases) {
    const tpl = await waitForTemplateCondition(admin, s.platform, name, 'Valid', 'False', 'ValidationFailed')
    t.match(message(tpl, 'Valid'), new RegExp(`^${server.url.replaceAll('.', '\\.')}/${name} chart demo version 0\\.1\\.0: `), name)
    t.match(message(tpl, 'Valid'), why, name)
    const inst = await waitForCondition(admin, s.team, name, 'Rendered', 'False', 'ChartUnavailable')
    t.equal(message(inst, 'Rendered'), message(tpl, 'Valid'))
  }
})

t.test('a chart whose template loops forever is stopped at the time limit while other instances reconcile', async (t) => {
  const server = await startChartServer(t)
  const s = await namespaces(t)
  const loop = tgz([
    { name: 'demo/Chart.yaml', data: CHART_YAML },
    {
      name: 'demo/templates/loop.yaml',
      data: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: loop\n{{- range until 1000 }}{{ range until 1000 }}{{ $_ := sha256sum (repeat 100000 "a") }}{{ end }}{{ end }}\n',
    },
  ])
  const url = publish(server, 'loop', loop)
  const started = Date.now()
  await createTemplate(admin, s.platform, 'loop', helmSpec(s, url, 'demo', '0.1.0'))
  await createInstance(admin, s.team, 'loop', { templateRef: { name: 'loop', namespace: s.platform } })

  // Meanwhile an ordinary Template and instance, and drift on it, are handled at once.
  await createTemplate(admin, s.platform, 'plain', {
    targetNamespaces: { explicit: { allow: { literal: [s.team] } } },
    sync: { mode: 'revert' },
    gotemplate: configMapTemplate('plain', { color: 'blue' }),
  })
  await createInstance(admin, s.team, 'plain', { templateRef: { name: 'plain', namespace: s.platform } })
  await waitForCondition(admin, s.team, 'plain', 'Synced', 'True', 'SyncActive')
  const plainPath = `/api/v1/namespaces/${s.team}/configmaps/plain`
  await admin.request('PATCH', plainPath, { body: { data: { color: 'red' } }, contentType: CONTENT_MERGE })
  await eventually('drift on the other instance reverted', async () =>
    (await admin.get<{ data: Record<string, string> }>(plainPath)).data['color'] === 'blue' ? true : undefined,
  )
  const otherDone = Date.now() - started
  const stillRendering = await admin.get<{ status?: { conditions?: { type: string }[] } }>(instancePath(s.team, 'loop'))
  t.notOk(
    stillRendering.status?.conditions?.some((c) => c.type === 'Rendered'),
    `the other instance was reconciled (${otherDone} ms) while the looping chart was still rendering`,
  )

  // Stopped at the limit: RenderTimeout, naming the Template, the chart, the limit and where the render was.
  const inst = await waitForCondition(admin, s.team, 'loop', 'Rendered', 'False', 'RenderTimeout', 30_000)
  t.match(
    message(inst, 'Rendered'),
    new RegExp(
      `^Template ${s.platform}/loop: chart demo 0\\.1\\.0 from ${url.replaceAll('.', '\\.')} did not render within the time limit of 3 s \\(reconciler --render-timeout-seconds\\) and was stopped: template: demo/templates/loop\\.yaml:5:\\d+: .*exceeded its time limit`,
    ),
  )
  t.ok(Date.now() - started >= RENDER_TIME_LIMIT_MS, 'it ran until the time limit')
  const tpl = await waitForTemplateCondition(admin, s.platform, 'loop', 'DryRunRendered', 'False', 'RenderTimeout', 30_000)
  t.match(message(tpl, 'DryRunRendered'), /demo\/templates\/loop\.yaml:5:\d+: .*exceeded its time limit/)
  await admin.request('PATCH', templatePath(s.platform, 'plain'), {
    body: { spec: { gotemplate: configMapTemplate('plain', { color: 'green' }) } },
    contentType: CONTENT_MERGE,
  })
  await eventually('the reconciler still applies changes afterwards', async () =>
    (await admin.get<{ data: Record<string, string> }>(plainPath)).data['color'] === 'green' ? true : undefined,
  )
})
