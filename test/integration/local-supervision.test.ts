// `template-sync local` supervises its processes like a kubelet: after a 30 s
// kube-apiserver outage (longer than the reconciler's lease lasts, so the
// reconciler exits as it must) the supervisor has restarted the reconciler,
// said so on the terminal, and drift is corrected again, a deleted object
// re-created. The system is set up by the same code `local` runs
// (src/cli/local-system.ts), on the test cluster, whose control endpoint
// takes kube-apiserver down.

import t from 'tap'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { adminClient, clusterInfo, eventually, freshNamespace, issueServingCert } from './helpers/cluster.ts'
import { createInstance, createTemplate, waitForCondition } from './helpers/operator.ts'
import { startSystem, type LocalCluster, type RunningSystem } from '../../src/cli/local-system.ts'
import { Supervisor } from '../../src/cli/supervisor.ts'
import { CONTENT_MERGE } from '../../src/kube/client.ts'
import type { IdentifiedObject } from '../../src/api/meta.ts'

const OUTAGE_SECONDS = 30

const info = clusterInfo()
const client = adminClient()
const stateDir = mkdtempSync(join(tmpdir(), 'ts-local-supervision-'))
const said: string[] = []
const supervisor = new Supervisor({ say: (line) => said.push(line), recordFile: join(stateDir, 'processes.json') })
const cluster: LocalCluster = {
  server: info.server,
  kubeconfigPath: info.kubeconfig,
  caPem: readFileSync(info.caCert, 'utf8'),
  issueServingCert: (_name, sans) => {
    const c = issueServingCert(sans)
    return { certPem: c.cert, keyPem: c.key }
  },
}
let system: RunningSystem | undefined
t.before(async () => {
  system = await startSystem({ cluster, client, supervisor, stateDir })
})
t.teardown(async () => {
  await system?.removeWebhookConfiguration()
  await supervisor.stop()
  client.close()
  rmSync(stateDir, { recursive: true, force: true })
})

const cmPath = (ns: string): string => `/api/v1/namespaces/${ns}/configmaps/app`
const colorOf = async (ns: string): Promise<string | undefined> =>
  ((await client.getOrUndefined<IdentifiedObject>(cmPath(ns)))?.data as Record<string, string> | undefined)?.color
const paint = (ns: string, color: string): Promise<unknown> =>
  client.request('PATCH', cmPath(ns), { body: { data: { color } }, contentType: CONTENT_MERGE, query: { fieldManager: 'kubectl-edit' } })

t.test(`drift is corrected again after a ${OUTAGE_SECONDS} s kube-apiserver outage`, async (t) => {
  const ns = await freshNamespace(t, client)
  await createTemplate(client, ns, 'tpl', {
    sync: { mode: 'revert' },
    gotemplate: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .instance.name }}\ndata:\n  color: blue\n',
  })
  await createInstance(client, ns, 'app', { templateRef: { name: 'tpl', namespace: ns } })
  await waitForCondition(client, ns, 'app', 'Synced', 'True', 'SyncActive')
  await paint(ns, 'red')
  await eventually('drift reverted before the outage', async () => ((await colorOf(ns)) === 'blue' ? true : undefined))
  const before = supervisor.pids()

  const res = await fetch(`${info.control}/apiserver-outage?seconds=${OUTAGE_SECONDS}`, { method: 'POST' })
  t.equal(res.status, 200, `the outage ran: ${await res.text()}`)

  t.match(
    said.find((l) => l.startsWith('reconciler exited')),
    /^reconciler exited with code 1 after [\d.]+ s \(lost the leader lease; stopping all work and exiting\); restarting in [\d.]+ s; log: .*reconciler\.log$/,
    'the terminal says why the reconciler exited and when it restarts',
  )
  t.match(
    said.find((l) => l.startsWith('reconciler restarted')),
    /^reconciler restarted \(pid \d+, restart \d+\)$/,
  )
  t.not(supervisor.pids().reconciler, before.reconciler, 'a new reconciler process runs')

  const back = Date.now()
  await paint(ns, 'green')
  await eventually('drift reverted after the outage', async () => ((await colorOf(ns)) === 'blue' ? true : undefined), 60_000)
  t.comment(`drift corrected ${Date.now() - back} ms after kube-apiserver was back`)
  const old = await client.get<IdentifiedObject>(cmPath(ns))
  await client.request('DELETE', cmPath(ns))
  const recreated = await eventually(
    'the deleted ConfigMap re-created',
    async () => {
      const cm = await client.getOrUndefined<IdentifiedObject>(cmPath(ns))
      return cm !== undefined && cm.metadata?.uid !== old.metadata?.uid && !cm.metadata?.deletionTimestamp ? cm : undefined
    },
    30_000,
  )
  t.equal((recreated.data as Record<string, string>).color, 'blue')
  await waitForCondition(client, ns, 'app', 'Ready', 'True', 'Reconciled')
  t.comment(said.join('\n'))
})
