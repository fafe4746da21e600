// Work-queue fairness on the real API server: while one Template edit has a
// re-render of 2,000 TemplateInstances queued, an edit of a revert object of
// another Template, in another namespace, is corrected in under a second, and
// most of the re-render is still waiting when it is. The queue's metrics show
// the bulk keys at low priority. (The same at 10,000 instances, with timings
// against a baseline: bench:converge, fairness round.)

import t from 'tap'
import { adminClient, freshNamespace, eventually } from './helpers/cluster.ts'
import {
  installCrds,
  startManager,
  createTemplate,
  createInstance,
  patchTemplateSpec,
  waitForCondition,
  instancePath,
  type RunningManager,
} from './helpers/operator.ts'
import { CONTENT_MERGE } from '../../src/kube/client.ts'
import { PRIORITY } from '../../src/controller/queue.ts'
import type { KubeObject } from '../../src/api/meta.ts'
import { Reflector } from '../../src/kube/reflector.ts'
import { parallel } from '../fixtures/parallel.ts'

const BULK = 2000
const TARGETS = 3

const client = adminClient()
let op: RunningManager
t.before(async () => {
  await installCrds(client)
  op = await startManager()
})
t.teardown(async () => {
  await op?.stop()
  client.close()
})

interface Listed {
  items: { metadata: { name: string; finalizers?: string[] }; status?: { conditions?: { type: string; status: string }[] } }[]
}

t.test(`a correction is not starved by a queued re-render of ${BULK} instances`, async (t) => {
  const nsFix = await freshNamespace(t, client, 'fair-fix')
  const nsBulk = await freshNamespace(t, client, 'fair-bulk')
  // Instances and objects carry finalizers only a reconciler removes; with the
  // re-render cut short by the manager's stop, remove them here so that the
  // namespace goes away without leaving work for the next test file's manager.
  t.teardown(async () => {
    await op.stop()
    for (const kind of [instancePath(nsBulk), `/api/v1/namespaces/${nsBulk}/configmaps`]) {
      const list = await client.get<Listed>(kind)
      await parallel(
        list.items.filter((i) => (i.metadata.finalizers ?? []).length > 0),
        16,
        (i) =>
          client
            .request('PATCH', `${kind}/${i.metadata.name}`, { body: { metadata: { finalizers: null } }, contentType: CONTENT_MERGE })
            .catch(() => {}),
      )
    }
  })

  await createTemplate(client, nsFix, 'fix', {
    sync: { mode: 'revert' },
    gotemplate: Array.from(
      { length: TARGETS },
      (_, i) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: target-${i}\ndata:\n  color: blue`,
    ).join('\n---\n'),
  })
  await createInstance(client, nsFix, 'app', { templateRef: { name: 'fix', namespace: nsFix } })
  await waitForCondition(client, nsFix, 'app', 'Synced', 'True', 'SyncActive')

  // The bulk instances first render nothing, which converges with two writes each.
  await createTemplate(client, nsBulk, 'bulk', { sync: { mode: 'revert' }, gotemplate: '{{/* nothing yet */}}' })
  const t0 = Date.now()
  await parallel(
    Array.from({ length: BULK }, (_, i) => `b${i}`),
    8,
    (name) => createInstance(client, nsBulk, name, { templateRef: { name: 'bulk', namespace: nsBulk } }),
  )
  t.comment(`created in ${Date.now() - t0} ms`)
  await eventually(
    `${BULK} instances Ready`,
    async () => {
      const list = await client.get<Listed>(instancePath(nsBulk))
      const ready = list.items.filter((i) => i.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
      return ready.length === BULK ? true : undefined
    },
    240_000,
    2_000,
  )
  t.comment(`ready in ${Date.now() - t0} ms`)
  const queue = op.manager.instanceQueue
  await eventually('the queue idle', async () => ((await queue.metrics()).depth === 0 && queue.inFlight() === 0 ? true : undefined))

  const targets = new Reflector(client, { path: `/api/v1/namespaces/${nsFix}/configmaps`, name: 'fairness targets' })
  t.teardown(() => targets.stop())
  targets.start()
  await targets.waitForSync()
  const color = (i: number): string | undefined =>
    (targets.get(nsFix, `target-${i}`) as (KubeObject & { data?: Record<string, string> }) | undefined)?.data?.color

  // One edit of the bulk Template: every bulk instance now renders a ConfigMap.
  await patchTemplateSpec(client, nsBulk, 'bulk', {
    gotemplate: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .instance.name }}\ndata:\n  rendered: "yes"',
  })
  const low = async (): Promise<number> => (await queue.metrics()).depthByPriority[String(PRIORITY.low)] ?? 0
  await eventually('the re-render queued', async () => ((await low()) >= BULK - 50 ? true : undefined), 10_000, 5)

  for (let i = 0; i < TARGETS; i++) {
    // Each object is edited once: repeated edits of one object are a fight, corrected with backoff.
    const editedAt = performance.now()
    await client.request('PATCH', `/api/v1/namespaces/${nsFix}/configmaps/target-${i}`, {
      body: { data: { color: 'red' } },
      contentType: CONTENT_MERGE,
      query: { fieldManager: 'someone-else' },
    })
    await eventually(`target-${i} reverted`, async () => (color(i) === 'blue' ? true : undefined), 30_000, 2)
    const tookMs = Math.round(performance.now() - editedAt)
    const stillQueued = await low()
    t.ok(tookMs < 1000, `target-${i} corrected ${tookMs} ms after the edit`)
    t.ok(stillQueued >= BULK / 2, `with ${stillQueued} of ${BULK} re-renders still queued`)
  }
  // A correction can also come from a reconcile of the instance that was already running; its drift events still queue it at drift priority.
  const taken = async (p: number): Promise<number> => (await queue.metrics()).latencyByPriorityMs[String(p)]?.count ?? 0
  await eventually(
    'the corrections taken at drift priority',
    async () => ((await taken(PRIORITY.drift)) >= TARGETS ? true : undefined),
    10_000,
  )
  t.ok((await taken(PRIORITY.low)) > 0, 'and re-renders at low priority')
})
