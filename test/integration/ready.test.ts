// What Ready means (docs/ready-condition.md) and what `kubectl get
// templateinstances` shows, against the real API server: a fight with another
// writer makes Ready=False/DriftConflict and is visible in the default
// columns, apart from the normal Frozen state of mode off; an instance of a
// Template that turns Valid=False goes Ready=False/TemplateInvalid and back.

import t from 'tap'
import { request, type RequestOptions } from 'node:https'
import { KubeConfig } from '@kubernetes/client-node'
import { adminClient, clusterInfo, freshNamespace } from './helpers/cluster.ts'
import {
  installCrds,
  startManager,
  createTemplate,
  createInstance,
  patchTemplateSpec,
  waitForCondition,
  waitForTemplateCondition,
  condition,
  instancePath,
  type RunningManager,
} from './helpers/operator.ts'
import { CONTENT_MERGE } from '../../src/kube/client.ts'
import type { IdentifiedObject } from '../../src/api/meta.ts'

const client = adminClient()
let op: RunningManager
t.before(async () => {
  await installCrds(client)
  op = await startManager({ instanceOptions: { conflictThreshold: 3, conflictWindowMs: 30_000, correctionBackoffMs: 50 } })
})
t.teardown(async () => {
  await op?.stop()
  client.close()
})

const BODY = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .instance.name }}\ndata:\n  color: blue\n'
const cmPath = (ns: string, name: string): string => `/api/v1/namespaces/${ns}/configmaps/${name}`

interface Table {
  columnDefinitions: { name: string; priority: number }[]
  rows: { cells: unknown[]; object: { metadata: { name: string } } }[]
}

/** GET with kubectl's Accept header for tables; the KubeClient always asks for plain JSON. */
async function getTable(path: string): Promise<Table> {
  const kc = new KubeConfig()
  kc.loadFromFile(clusterInfo().kubeconfig)
  const url = new URL(`${kc.getCurrentCluster()?.server ?? ''}${path}`)
  const opts: RequestOptions = { method: 'GET', headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } }
  await kc.applyToHTTPSOptions(opts)
  return new Promise((resolve, reject) => {
    const req = request(url, opts, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(body) as Table) : reject(new Error(`${res.statusCode}: ${body}`))))
    })
    req.on('error', reject)
    req.end()
  })
}

/** The default columns of `kubectl get templateinstances -n ns`, by instance name: the server's Table rendering. */
async function defaultColumns(ns: string): Promise<Record<string, Record<string, unknown>>> {
  const table = await getTable(instancePath(ns))
  const out: Record<string, Record<string, unknown>> = {}
  for (const row of table.rows) {
    const cells: Record<string, unknown> = {}
    table.columnDefinitions.forEach((c, i) => {
      if (c.priority === 0) cells[c.name] = row.cells[i]
    })
    out[row.object.metadata.name] = cells
  }
  return out
}

t.test('a fight is Ready=False/DriftConflict and shows in the default columns, unlike Frozen', async (t) => {
  const ns = await freshNamespace(t, client)
  await createTemplate(client, ns, 'fought', { sync: { mode: 'revert' }, gotemplate: BODY })
  await createTemplate(client, ns, 'frozen', { sync: { mode: 'off' }, gotemplate: BODY })
  await createInstance(client, ns, 'fought', { templateRef: { name: 'fought', namespace: ns } })
  await createInstance(client, ns, 'frozen', { templateRef: { name: 'frozen', namespace: ns } })
  await waitForCondition(client, ns, 'fought', 'Ready', 'True', 'Reconciled')
  await waitForCondition(client, ns, 'frozen', 'Synced', 'False', 'Frozen')

  const stop = new AbortController()
  t.teardown(() => stop.abort())
  const fight = (async () => {
    while (!stop.signal.aborted) {
      const cm = await client.getOrUndefined<IdentifiedObject>(cmPath(ns, 'fought')).catch(() => undefined)
      if ((cm?.data as Record<string, string> | undefined)?.color !== 'red') {
        await client
          .request('PATCH', cmPath(ns, 'fought'), {
            body: { data: { color: 'red' } },
            contentType: CONTENT_MERGE,
            query: { fieldManager: 'rival-controller' },
          })
          .catch(() => {})
      }
      await new Promise((r) => setTimeout(r, 50))
    }
  })()
  const inst = await waitForCondition(client, ns, 'fought', 'Ready', 'False', 'DriftConflict', 60_000)
  stop.abort()
  await fight
  t.match(condition(inst, 'Ready')?.message, /rival-controller/, 'Ready names the other field manager, as Synced does')
  t.equal(inst.status?.phase, 'Ready', 'phase follows the gating conditions only (v2 API)')

  const frozen = await waitForCondition(client, ns, 'frozen', 'Ready', 'True', 'Reconciled')
  t.equal(condition(frozen, 'Synced')?.status, 'False', 'Frozen is Synced=False and still Ready')

  const columns = await defaultColumns(ns)
  t.strictSame(
    Object.keys(columns.fought ?? {}),
    ['Name', 'Template', 'Ready', 'Reason', 'Sync', 'Age'],
    'default columns of kubectl get templateinstances',
  )
  t.match(columns.fought, { Template: 'fought', Ready: 'False', Reason: 'DriftConflict', Sync: 'DriftConflict' })
  t.match(columns.frozen, { Template: 'frozen', Ready: 'True', Reason: 'Reconciled', Sync: 'Frozen' })
})

t.test('an instance of a Template that turns Valid=False is Ready=False/TemplateInvalid until it is fixed', async (t) => {
  const ns = await freshNamespace(t, client)
  await createTemplate(client, ns, 'tpl', { sync: { mode: 'revert', ignoreFields: ['data.color'] }, gotemplate: BODY })
  await createInstance(client, ns, 'app', { templateRef: { name: 'tpl', namespace: ns } })
  await waitForCondition(client, ns, 'app', 'Ready', 'True', 'Reconciled')

  // The spec change requeues the instance at once, usually before the Template
  // reconciler has judged it; Ready must follow the later status-only update.
  await patchTemplateSpec(client, ns, 'tpl', { sync: { mode: 'revert', ignoreFields: ['data[color'] } })
  const tpl = await waitForTemplateCondition(client, ns, 'tpl', 'Valid', 'False', 'ValidationFailed')
  const inst = await waitForCondition(client, ns, 'app', 'Ready', 'False', 'TemplateInvalid')
  const valid = condition(tpl, 'Valid')
  t.equal(condition(inst, 'Ready')?.message, `Template ${ns}/tpl is Valid=False/ValidationFailed: ${valid?.message}`)
  t.equal(condition(inst, 'Applied')?.status, 'True', 'the render itself still applied')
  t.match(await defaultColumns(ns), { app: { Ready: 'False', Reason: 'TemplateInvalid', Sync: 'SyncActive' } })

  await patchTemplateSpec(client, ns, 'tpl', { sync: { mode: 'revert', ignoreFields: ['data.color'] } })
  await waitForTemplateCondition(client, ns, 'tpl', 'Valid', 'True')
  await waitForCondition(client, ns, 'app', 'Ready', 'True', 'Reconciled')
})
