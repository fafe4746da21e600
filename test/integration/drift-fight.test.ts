// Fights over a field under revert, against the real API server: corrections
// never stop, they back off per object up to the cap, the fight is reported
// as DriftConflict while it lasts and cleared once the object stays
// corrected. The first test runs with a short cap (1 s) so that twenty
// human-paced repeats fit in seconds; the second runs with the production
// defaults (0.5 s doubling, cap 5 min, quiet period 3 s, window 10 s) and a
// fighter that changes the object 10 times a second for 60 s. Each test runs
// its own reconciler, one after the other.

import t from 'tap'
import { adminClient, freshNamespace, eventually } from './helpers/cluster.ts'
import {
  installCrds,
  startManager,
  createTemplate,
  createInstance,
  waitForCondition,
  condition,
  type RunningManager,
} from './helpers/operator.ts'
import { CONTENT_MERGE } from '../../src/kube/client.ts'
import type { IdentifiedObject } from '../../src/api/meta.ts'
import { DEFAULT_INSTANCE_OPTIONS } from '../../src/controller/instance.ts'

const client = adminClient()
t.before(() => installCrds(client))
t.teardown(() => client.close())

const cmPath = (ns: string, name = 'app'): string => `/api/v1/namespaces/${ns}/configmaps/${name}`
const colorOf = async (ns: string): Promise<string | undefined> =>
  ((await client.getOrUndefined<IdentifiedObject>(cmPath(ns)))?.data as Record<string, string> | undefined)?.color
const setColor = (ns: string, color: string, manager: string): Promise<unknown> =>
  client.request('PATCH', cmPath(ns), { body: { data: { color } }, contentType: CONTENT_MERGE, query: { fieldManager: manager } })
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

const isWrite = (v: string): boolean =>
  v !== 'GET' && v !== 'WATCH' && !v.endsWith('-DRYRUN') && !v.startsWith('LEASE-') && !v.startsWith('EVENT-')

/** The reconciler's writes into one namespace from now on: to the ConfigMap, and everything else. */
function countWrites(op: RunningManager, ns: string): { object: () => number; other: () => number; stop: () => void } {
  let object = 0
  let other = 0
  const stop = op.client.observe((verb, path) => {
    if (!isWrite(verb) || !path.includes(`/namespaces/${ns}/`)) return
    if (path.startsWith(cmPath(ns))) object++
    else other++
  })
  return { object: () => object, other: () => other, stop }
}

/** Waits until the reconciler has made no write in ns for quietMs: the passes of the setup are over. */
async function quiet(op: RunningManager, ns: string, quietMs: number, timeoutMs = 20_000): Promise<void> {
  let last = Date.now()
  const stop = op.client.observe((verb, path) => {
    if (isWrite(verb) && path.includes(`/namespaces/${ns}/`)) last = Date.now()
  })
  try {
    const deadline = Date.now() + timeoutMs
    while (Date.now() - last < quietMs) {
      if (Date.now() > deadline) throw new Error(`the reconciler kept writing in ${ns} for ${timeoutMs} ms after the setup`)
      await sleep(50)
    }
  } finally {
    stop()
  }
}

async function revertSetup(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const ns = await freshNamespace(t, client)
  await createTemplate(client, ns, 'tpl', {
    sync: { mode: 'revert' },
    gotemplate: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .instance.name }}\ndata:\n  color: blue\n',
  })
  await createInstance(client, ns, 'app', { templateRef: { name: 'tpl', namespace: ns } })
  await waitForCondition(client, ns, 'app', 'Synced', 'True', 'SyncActive')
  return ns
}

t.test('a person repeating an edit 200 ms after each revert, 20 times, is reverted every time within the cap', async (t) => {
  const capMs = 1000
  // Watch delivery, the reconcile and the apply on a shared machine, on top of the backoff.
  const processingMs = 2000
  const op = await startManager({ instanceOptions: { correctionBackoffMaxMs: capMs } })
  t.teardown(() => op.stop())
  const ns = await revertSetup(t)
  const latencies: number[] = []
  let conflictSeen: string | undefined
  for (let i = 1; i <= 20; i++) {
    const edited = Date.now()
    await setColor(ns, 'red', 'kubectl-edit')
    await eventually(`edit ${i} reverted`, async () => ((await colorOf(ns)) === 'blue' ? true : undefined), 30_000, 20)
    latencies.push(Date.now() - edited)
    if (i === 10) {
      const inst = await waitForCondition(client, ns, 'app', 'Synced', 'False', 'DriftConflict', 5000)
      conflictSeen = condition(inst, 'Synced')?.message
    }
    await sleep(200)
  }
  t.comment(`revert latencies (ms): ${latencies.join(' ')}`)
  t.ok(
    latencies.every((ms) => ms <= capMs + processingMs),
    `every edit reverted within the ${capMs} ms cap plus ${processingMs} ms processing (max ${Math.max(...latencies)} ms)`,
  )
  t.ok(
    latencies.slice(3).some((ms) => ms >= capMs / 2),
    'later reverts were held back by the backoff (the person was not reverted at full speed)',
  )
  t.match(conflictSeen, /field manager "kubectl-edit" keeps changing ConfigMap .*\/app; corrections continue with backoff/)
  t.equal((await colorOf(ns)) ?? '', 'blue', 'the rendered value stands at the end')
  t.equal(op.events.filter((e) => e.reason === 'Reverted').length, 20, 'one Reverted event per edit')
  t.ok(
    op.events.some((e) => e.reason === 'Reverted' && /after a .* backoff: field manager "kubectl-edit"/.test(e.message)),
    'a correction after a backoff says so',
  )
  t.ok(
    op.events.some((e) => e.type === 'Warning' && e.reason === 'DriftConflict' && /"kubectl-edit"/.test(e.message)),
    'DriftConflict event',
  )
  // Left alone, the correction holds: the fight is over after the window.
  await waitForCondition(client, ns, 'app', 'Synced', 'True', 'SyncActive', DEFAULT_INSTANCE_OPTIONS.conflictWindowMs + 10_000)
  t.ok(
    op.events.some((e) => e.reason === 'DriftConflictResolved' && /"kubectl-edit" is over/.test(e.message)),
    'an Event says corrections are immediate again',
  )
})

t.test(
  'a 10 Hz fighter for 60 s under the production defaults: at most 7 writes, restored within the quiet period once it stops',
  async (t) => {
    const op = await startManager()
    t.teardown(() => op.stop())
    const ns = await revertSetup(t)
    await quiet(op, ns, 1000)
    const writes = countWrites(op, ns)
    t.teardown(writes.stop)
    const started = Date.now()
    let fighting = true
    let fighterWrites = 0
    // Each write a new value, as a writer that stamps a counter or a time: a
    // write of the value the object already holds changes nothing and is seen
    // by no one (docs/drift-fights.md).
    const fighter = (async () => {
      while (fighting) {
        await setColor(ns, `hostile-${fighterWrites}`, 'hostile-controller').catch(() => {})
        fighterWrites++
        await sleep(100)
      }
    })()
    t.teardown(() => {
      fighting = false
    })
    const inst = await waitForCondition(client, ns, 'app', 'Synced', 'False', 'DriftConflict', 30_000)
    t.match(condition(inst, 'Synced')?.message, /field manager "hostile-controller" keeps changing ConfigMap/, 'names the fighter')
    await sleep(60_000 - (Date.now() - started))
    fighting = false
    await fighter
    const objectWrites = writes.object()
    const otherWrites = writes.other()
    t.comment(`fighter writes: ${fighterWrites}; reconciler writes to the object in 60 s: ${objectWrites}; other writes: ${otherWrites}`)
    // The backoff schedule: corrections at 0, 0.5, 1.5, 3.5, 7.5, 15.5 and 31.5 s; the next is due at 63.5 s.
    t.ok(objectWrites >= 5, `corrections went on during the fight (${objectWrites})`)
    t.ok(objectWrites <= 7, `at most 7 corrections in 60 s (${objectWrites})`)
    t.ok(otherWrites <= 1, `besides them at most the status write that reports the fight (${otherWrites})`)
    t.match(await colorOf(ns), /^hostile-/, 'the fighter had the last word when it stopped')

    const stopped = Date.now()
    await eventually(
      'restored after the fighter stopped',
      async () => ((await colorOf(ns)) === 'blue' ? true : undefined),
      DEFAULT_INSTANCE_OPTIONS.correctionBackoffMaxMs + 10_000,
      20,
    )
    const restoreMs = Date.now() - stopped
    const limitMs = DEFAULT_INSTANCE_OPTIONS.correctionQuietMs + 1000
    t.comment(`restored ${restoreMs} ms after the fighter stopped`)
    t.ok(
      restoreMs <= limitMs,
      `within the quiet period and a second (${limitMs} ms), not the ${DEFAULT_INSTANCE_OPTIONS.correctionBackoffMaxMs} ms cap`,
    )
    await waitForCondition(client, ns, 'app', 'Synced', 'True', 'SyncActive', DEFAULT_INSTANCE_OPTIONS.conflictWindowMs + 10_000)
    t.ok(
      op.events.some((e) => e.reason === 'DriftConflictResolved' && /"hostile-controller"/.test(e.message)),
      'fight reported over',
    )
  },
)
