// The chart's alerts and Grafana dashboard against a running system
// (docs/observability-tests.md): the webhook behind the chart's webhook
// configuration and the reconciler as its process runs (leader election,
// health and metrics listener), a small workload by the people of a cluster
// (a denial, a revert, a fight, instances that cannot apply), a scrape of
// both /metrics before and after, and promtool evaluating every dashboard
// query and every alert over those scrapes.

import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CONTENT_MERGE } from '../../src/kube/client.ts'
import { runReconciler } from '../../src/reconciler/main.ts'
import { dashboardQueries, type GrafanaDashboard, parseLabelValues } from '../fixtures/dashboard.ts'
import { alertSignal, inputSeries, parseExposition, returnsData, type Scrape } from '../fixtures/promtool.ts'
import { binaryPath, find, type Manifest, render } from './helpers/chart.ts'
import { adminClient, eventually } from './helpers/cluster.ts'
import { userKubeconfig } from './helpers/identity.ts'
import { installCrds, waitForCondition } from './helpers/operator.ts'
import { memoryLogs, reconcilerUsername, startAdmission } from './helpers/system.ts'
import { instantiate, publish, refused, type Tenancy, tenancy } from './helpers/tenancy.ts'

const admin = adminClient()
await installCrds(admin)
t.teardown(() => admin.close())

/** The release the chart is rendered as, and the jobs its ServiceMonitor gives the two processes. */
const RELEASE = 'template-sync'
const JOBS = { webhook: `${RELEASE}-webhook`, reconciler: `${RELEASE}-reconciler` } as const
const MONITORING = { metrics: { serviceMonitor: { enabled: true }, prometheusRule: { enabled: true }, dashboard: { enabled: true } } }
/** Metrics whose values are Unix times; the test moves them to promtool's clock. */
const TIMESTAMPS = new Set(['template_sync_webhook_cert_not_after_seconds', 'process_start_time_seconds'])
/** Scrape 1 holds for steps 0-9 (minutes), scrape 2 from step 10 to 40. */
const STEPS = [10, 31]
/** When the queries are evaluated: the rate windows (5m) then span the step from scrape 1 to scrape 2. */
const QUERY_AT = '12m'
/** When the alerts are read: long after every `for` of an alert whose condition holds from step 10. */
const ALERTS_AT = '35m'
const GRAFANA_VARIABLES: Readonly<Record<string, string>> = {
  webhook_job: JOBS.webhook,
  reconciler_job: JOBS.reconciler,
  instance_namespace: '.*',
  __rate_interval: '5m',
  __range: QUERY_AT,
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

interface AlertRule {
  alert: string
  expr: string
}
type PrometheusRule = Manifest & { spec: { groups: { name: string; rules: AlertRule[] }[] } }

async function scrape(url: string, target: Record<string, string>): Promise<Scrape> {
  const res = await fetch(`${url}/metrics`)
  if (res.status !== 200) throw new Error(`GET ${url}/metrics: ${res.status}`)
  return { target, samples: parseExposition(await res.text()), atSeconds: Date.now() / 1000 }
}

const sumOf = (s: Scrape, name: string, labels: Record<string, string>): number =>
  s.samples.filter((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v)).reduce((n, x) => n + x.value, 0)

/** A Template of the platform team that renders one ConfigMap named after the instance, for team-a. */
const publishConfigMap = (who: Tenancy, name: string, mode: 'strict' | 'revert', data = 'color: blue'): Promise<void> =>
  publish(who, name, {
    sync: { mode },
    gotemplate: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .instance.name }}\ndata:\n  ${data}\n`,
  })

t.test('every dashboard query and alert returns data after a denial, a revert, a fight and failed applies', async (t) => {
  const [helmBin, promtool] = await Promise.all([binaryPath('helm'), binaryPath('promtool')])
  const who = await tenancy(t, admin)
  const ns = who.teamA.namespace
  const cmPath = (name: string): string => `/api/v1/namespaces/${ns}/configmaps/${name}`
  const setColor = (name: string, color: string, manager: string): Promise<unknown> =>
    who.teamA.client.request('PATCH', cmPath(name), {
      body: { data: { color } },
      contentType: CONTENT_MERGE,
      query: { fieldManager: manager },
    })

  // The two processes, as a cluster runs them.
  const user = reconcilerUsername()
  const logs = memoryLogs()
  const admission = await startAdmission(admin, user, logs.log.child({ process: 'webhook' }))
  t.teardown(() => admission.stop())
  const stop = new AbortController()
  let healthUrl: (url: string) => void = () => {}
  const listening = new Promise<string>((resolve) => {
    healthUrl = resolve
  })
  const exited = runReconciler({
    argv: [
      '--kubeconfig',
      userKubeconfig(user),
      '--health-address',
      '127.0.0.1',
      '--health-port',
      '0',
      '--leader-election-namespace',
      who.platform.namespace,
      '--leader-election-name',
      JOBS.reconciler,
      '--lease-duration-seconds',
      '4',
    ],
    env: {},
    handleSignals: false,
    log: logs.log.child({ process: 'reconciler' }),
    signal: stop.signal,
    onListening: healthUrl,
  })
  t.teardown(async () => {
    stop.abort()
    await exited
  })
  const reconcilerUrl = await listening
  const webhookTarget = { job: JOBS.webhook, instance: new URL(admission.webhook.healthUrl).host }
  const reconcilerTarget = { job: JOBS.reconciler, instance: new URL(reconcilerUrl).host }
  const scrapeBoth = async (): Promise<Scrape[]> => [
    await scrape(admission.webhook.healthUrl, webhookTarget),
    await scrape(reconcilerUrl, reconcilerTarget),
  ]

  // Templates and instances: one strict, one revert, one that meets an object it does not own,
  // one whose render the API server refuses.
  await publishConfigMap(who, 'locked', 'strict')
  await publishConfigMap(who, 'loose', 'revert')
  await publishConfigMap(who, 'invalid', 'revert', '"not a key!": x')
  await who.teamA.client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'blocked' }, data: { color: 'mine' } },
  })
  await instantiate(who, 'guarded', 'locked')
  await instantiate(who, 'reverted', 'loose')
  await instantiate(who, 'blocked', 'loose')
  await instantiate(who, 'broken', 'invalid')
  await waitForCondition(admin, ns, 'guarded', 'Synced', 'True', 'SyncActive')
  await waitForCondition(admin, ns, 'reverted', 'Synced', 'True', 'SyncActive')
  await waitForCondition(admin, ns, 'blocked', 'Applied', 'False', 'OwnershipConflict')
  await waitForCondition(admin, ns, 'broken', 'Applied', 'False', 'DryRunFailed')
  const before = await scrapeBoth()

  // A denial: team-a's admin edits what a strict Template renders.
  const denied = await refused('editing a strict object', () => setColor('guarded', 'red', 'kubectl-edit'))
  t.match(denied.apiMessage, /admission webhook "strict\.templates\.v2\.stakater\.com" denied the request/)
  // A revert: the same edit under revert is put back.
  await setColor('reverted', 'red', 'kubectl-edit')
  await eventually('the edit reverted', async () => {
    const cm = await admin.get<{ data?: { color?: string } }>(cmPath('reverted'))
    return cm.data?.color === 'blue' ? true : undefined
  })
  // A fight: another writer keeps changing it back until the instance reports DriftConflict.
  let fighting = true
  const fighter = (async () => {
    while (fighting) {
      await setColor('reverted', 'hostile', 'hostile-controller').catch(() => {})
      await sleep(100)
    }
  })()
  t.teardown(async () => {
    fighting = false
    await fighter
  })
  await waitForCondition(admin, ns, 'reverted', 'Synced', 'False', 'DriftConflict')
  // The instance gauge is computed at scrape time; the counters moved with the passes.
  const after = await scrapeBoth()
  fighting = false
  await fighter

  const [webhookAfter, reconcilerAfter] = after as [Scrape, Scrape]
  t.ok(
    sumOf(webhookAfter, 'template_sync_webhook_denials_total', { instance_namespace: ns, reason: 'ProtectedFieldChanged' }) >= 1,
    'the denial is counted under team-a',
  )
  t.ok(
    sumOf(reconcilerAfter, 'template_sync_corrections_total', { instance_namespace: ns, writer: 'other' }) >= 2,
    'the revert and the fight corrected, after another writer',
  )
  t.equal(
    sumOf(reconcilerAfter, 'template_sync_corrections_total', { instance_namespace: ns, writer: 'component' }),
    0,
    'no component was reverted',
  )
  t.ok(sumOf(reconcilerAfter, 'template_sync_drift_conflicts_total', { instance_namespace: ns }) >= 1, 'the fight is counted')
  t.ok(
    sumOf(reconcilerAfter, 'template_sync_instances', { condition: 'Applied', status: 'False', reason: 'OwnershipConflict' }) >= 1,
    'the instance that cannot apply is counted',
  )
  t.ok(
    sumOf(reconcilerAfter, 'template_sync_object_failures_total', { instance_namespace: ns, operation: 'dry-run' }) >= 1,
    'the refused render is counted',
  )
  t.equal(sumOf(reconcilerAfter, 'leader_election_master_status', { name: JOBS.reconciler }), 1, 'the reconciler leads')

  // What the chart ships: the rules of its PrometheusRule and the dashboard of its ConfigMap.
  const ms = render(helmBin, MONITORING, RELEASE, RELEASE)
  const groups = find<PrometheusRule>(ms, 'PrometheusRule', RELEASE).spec.groups
  const dashboard = JSON.parse(
    (find(ms, 'ConfigMap', `${RELEASE}-dashboard`) as Manifest & { data: Record<string, string> }).data['template-sync.json'] ?? '',
  ) as GrafanaDashboard
  const substitute = (q: string): string =>
    q.replace(/\$\{?(\w+)\}?/g, (_, name: string) => {
      const v = GRAFANA_VARIABLES[name]
      if (v === undefined) throw new Error(`no value for $${name} in ${q}`)
      return v
    })

  const one = [{ labels: '{}', value: 1 }]
  const checks: { expr: string; eval_time: string; exp_samples: { labels: string; value: number }[] }[] = []
  const checked: string[] = []
  for (const q of dashboardQueries(dashboard)) {
    if (q.variable) {
      // A job variable must offer the job, the namespace variable team-a's namespace.
      const { selector, label } = parseLabelValues(substitute(q.expr))
      const want = label === 'instance_namespace' ? ns : selector.includes('webhook') ? JOBS.webhook : JOBS.reconciler
      checks.push({
        expr: `clamp_max(count by (${label}) (${selector}) * on (${label}) label_replace(vector(1), "${label}", "${want}", "", ""), 1)`,
        eval_time: QUERY_AT,
        exp_samples: [{ labels: `{${label}="${want}"}`, value: 1 }],
      })
    } else checks.push({ expr: returnsData(substitute(q.expr)), eval_time: QUERY_AT, exp_samples: one })
    checked.push(q.where)
  }
  const rules = groups.flatMap((g) => g.rules)
  for (const r of rules) {
    checks.push({ expr: returnsData(alertSignal(r.expr)), eval_time: QUERY_AT, exp_samples: one })
    checked.push(`alert ${r.alert}`)
  }
  // What the workload provokes fires; what a healthy system must not show stays quiet.
  const firing = ['TemplateSyncApplyFailing', 'TemplateSyncCertificateExpiring', 'TemplateSyncDriftConflict']
  const quiet = [
    'TemplateSyncWebhookDown',
    'TemplateSyncWebhookErrors',
    'TemplateSyncDenialsSpiking',
    'TemplateSyncNoLeader',
    'TemplateSyncLeaderFlapping',
  ]
  checks.push({
    expr: `clamp_max(count by (alertname) (ALERTS{alertstate="firing",alertname=~"${firing.join('|')}"}), 1)`,
    eval_time: ALERTS_AT,
    exp_samples: firing.map((a) => ({ labels: `{alertname="${a}"}`, value: 1 })),
  })
  checks.push({
    expr: `count(ALERTS{alertstate="firing",alertname=~"${quiet.join('|')}"}) or vector(0)`,
    eval_time: ALERTS_AT,
    exp_samples: [{ labels: '{}', value: 0 }],
  })

  const dir = mkdtempSync(join(tmpdir(), 'ts-promtool-'))
  writeFileSync(join(dir, 'rules.json'), JSON.stringify({ groups }))
  const series = inputSeries([before, after], STEPS, { stepSeconds: 60, timestamps: TIMESTAMPS })
  writeFileSync(
    join(dir, 'test.json'),
    JSON.stringify({
      rule_files: ['rules.json'],
      evaluation_interval: '1m',
      tests: [{ interval: '1m', input_series: series, promql_expr_test: checks }],
    }),
  )
  const r = spawnSync(promtool, ['test', 'rules', join(dir, 'test.json')], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  t.comment(`${series.length} input series; ${checks.length} checks`)
  t.equal(r.status, 0, `promtool test rules over the scrapes:\n${r.stdout}${r.stderr}`)
  t.match(r.stdout, /SUCCESS/)
  t.ok(dashboardQueries(dashboard).length >= 30 && rules.length === 12, `checked: ${checked.join('; ')}`)
})
