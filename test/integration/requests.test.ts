// What the reconciler asks of the real API server, counted by verb on the
// paths of one namespace: a new instance of five objects (live objects from
// the drift watch's cache, no GET; one Event naming the five), a converged
// instance at rest (nothing), a correction (one write), a restart over a
// converged instance (nothing per object: docs/restart-without-dry-runs.md),
// and restarts over drift or a changed Template, which still go through the
// dry-run. The Events go through the real EventRecorder, so their writes are
// counted too.

import t from 'tap'
import { adminClient, clusterInfo, freshNamespace, eventually, type TestLike } from './helpers/cluster.ts'
import {
  installCrds,
  startManager,
  createTemplate,
  createInstance,
  waitForCondition,
  configMapTemplate,
  condition,
  patchTemplateSpec,
  type RunningManager,
} from './helpers/operator.ts'
import { CONTENT_MERGE, KubeClient } from '../../src/kube/client.ts'
import { EventRecorder } from '../../src/kube/events.ts'
import { eventSink } from '../../src/reconciler/main.ts'
import type { IdentifiedObject } from '../../src/api/meta.ts'
import { LABEL_INSTANCE_UID } from '../../src/api/names.ts'
import { trackedKind } from '../../src/api/templateinstance-kinds.ts'

const admin = adminClient()
const client = KubeClient.fromFile(clusterInfo().kubeconfig, 'template-sync')
const recorder = new EventRecorder({ client, reportingInstance: 'requests-test' })
let op: RunningManager
const start = (): Promise<RunningManager> => startManager({ client, events: eventSink(recorder) })

t.before(async () => {
  await installCrds(admin)
  op = await start()
})
t.teardown(async () => {
  await op.stop()
  await recorder.flush()
  client.close()
  admin.close()
})

/**
 * Requests of the reconciler's client on one namespace's paths, by verb.
 * Watches are left out (they are not per pass), and so are the Template's own
 * finalizer and status, which are per Template, not per instance.
 */
function countIn(ns: string): { byVerb: Record<string, number>; total(): number; writes(): number; reset(): void } {
  let byVerb: Record<string, number> = {}
  client.observe((verb, path) => {
    if (verb === 'WATCH' || !path.includes(`/namespaces/${ns}/`) || path.includes(`/namespaces/${ns}/templates/`)) return
    byVerb[verb] = (byVerb[verb] ?? 0) + 1
    if (process.env.REQ_DEBUG) console.error('REQ', verb, path)
  })
  return {
    get byVerb() {
      return byVerb
    },
    total: () => Object.values(byVerb).reduce((a, b) => a + b, 0),
    // Object and status writes; dry-runs and Events apart.
    writes: () =>
      Object.entries(byVerb)
        .filter(([v]) => !v.endsWith('-DRYRUN') && !v.startsWith('EVENT-') && v !== 'GET')
        .reduce((a, [, n]) => a + n, 0),
    reset: () => {
      byVerb = {}
    },
  }
}

const cmPath = (ns: string, name = ''): string => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`
const settle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
const NAMES = ['a', 'b', 'c', 'd', 'e']

async function fiveObjectTemplate(ns: string): Promise<void> {
  await createTemplate(admin, ns, 'five', {
    sync: { mode: 'revert' },
    gotemplate: NAMES.map((n) => configMapTemplate(`{{ .instance.name }}-${n}`, { v: '"1"' })).join('\n---\n'),
  })
}

/** An instance of the same kind elsewhere, so that the ConfigMap drift watch has synced before the counted one starts. */
async function warmUp(t: TestLike): Promise<void> {
  const warm = await freshNamespace(t, admin, 'req-warm')
  await fiveObjectTemplate(warm)
  await createInstance(admin, warm, 'warm', { templateRef: { name: 'five', namespace: warm } })
  await waitForCondition(admin, warm, 'warm', 'Synced', 'True')
}

t.test('a new instance of five objects, at rest, corrected, and after a restart', async (t) => {
  await warmUp(t)
  const ns = await freshNamespace(t, admin, 'req')
  await fiveObjectTemplate(ns)
  const count = countIn(ns)
  await createInstance(admin, ns, 'app', { templateRef: { name: 'five', namespace: ns } })
  await waitForCondition(admin, ns, 'app', 'Ready', 'True')
  await waitForCondition(admin, ns, 'app', 'Synced', 'True')
  await settle(1500)
  await recorder.flush()
  t.comment(`new instance: ${JSON.stringify(count.byVerb)}`)
  t.equal(count.byVerb.GET ?? 0, 0, 'no GET: the drift cache is synced and the dry-run tells an absent object')
  t.equal(count.byVerb['PATCH-DRYRUN'], 5, 'the dry-run gate: one per object')
  t.equal(count.byVerb['EVENT-POST'], 1, 'one Event for the five objects created')
  t.equal(count.byVerb['STATUS-PATCH'], 1, 'one status write: the kinds went on the instance with the finalizer')
  t.equal(count.byVerb.PATCH, 6, 'five applies and the patch that adds the finalizer and the kinds')
  t.ok(count.total() <= 13, `${count.total()} requests for an instance of five objects`)
  const events = await admin.get<{ items: { reason: string; message: string; involvedObject: { name: string } }[] }>(
    `/api/v1/namespaces/${ns}/events`,
  )
  const created = events.items.filter((e) => e.involvedObject.name === 'app' && e.reason === 'Created')
  t.equal(created.length, 1)
  for (const n of NAMES) t.match(created[0]?.message, `ConfigMap ${ns}/app-${n}`, `the Event names app-${n}`)

  count.reset()
  await settle(3000)
  t.same(count.byVerb, {}, 'a converged instance makes no request at rest')

  await admin.request('PATCH', cmPath(ns, 'app-c'), { body: { data: { v: 'drifted' } }, contentType: CONTENT_MERGE })
  await eventually('drift corrected', async () => {
    const cm = await admin.get<IdentifiedObject & { data?: Record<string, string> }>(cmPath(ns, 'app-c'))
    return cm.data?.v === '1' ? true : undefined
  })
  await settle(1500)
  await recorder.flush()
  t.comment(`correction: ${JSON.stringify(count.byVerb)}`)
  t.equal(count.writes(), 1, 'one write for the correction')
  t.equal(count.byVerb.GET ?? 0, 0, 'the live object came from the drift cache')

  // A new reconciler over the converged instance: it remembers nothing, yet
  // proves from the drift cache (our managedFields entry) that its applies
  // would change nothing, and asks nothing per object.
  await op.stop()
  count.reset()
  op = await start()
  await restartedPassDone(op, `${ns}/app`)
  await recorder.flush()
  t.comment(`restart: ${JSON.stringify(count.byVerb)}`)
  t.equal(count.byVerb['PATCH-DRYRUN'] ?? 0, 0, 'no dry-run after a restart')
  t.equal(count.byVerb.GET ?? 0, 0, 'no GET of the objects: the drift cache holds them')
  t.equal(count.writes(), 0, 'no object or status write after a restart')
  t.equal(count.byVerb['EVENT-POST'] ?? 0, 0, 'nothing to report')
})

/** Until the restarted manager has finished a pass over `key` with its drift watch synced, and its queue is idle. */
async function restartedPassDone(running: RunningManager, key: string): Promise<void> {
  const drift = trackedKind('v1', 'ConfigMap')
  await eventually(`restarted reconciler passed over ${key}`, async () => {
    const q = running.manager.instanceQueue
    const idle = q.len() === 0 && q.inFlight() === 0
    return running.passes(key) >= 1 && running.manager.drift.state(drift).synced && idle ? true : undefined
  })
  // Whatever the drift watch's first sync queued again has run by now.
  await settle(1500)
}

t.test('a restart over drift made while no reconciler ran: the dry-run judges and one write puts it back', async (t) => {
  await warmUp(t)
  const ns = await freshNamespace(t, admin, 'req-restart-drift')
  await fiveObjectTemplate(ns)
  await createInstance(admin, ns, 'app', { templateRef: { name: 'five', namespace: ns } })
  await waitForCondition(admin, ns, 'app', 'Synced', 'True')
  await op.stop()
  await admin.request('PATCH', cmPath(ns, 'app-d'), { body: { data: { v: 'drifted' } }, contentType: CONTENT_MERGE })
  const count = countIn(ns)
  op = await start()
  await eventually('drift put back by the restarted reconciler', async () => {
    const cm = await admin.get<IdentifiedObject & { data?: Record<string, string> }>(cmPath(ns, 'app-d'))
    return cm.data?.v === '1' ? true : undefined
  })
  await restartedPassDone(op, `${ns}/app`)
  await recorder.flush()
  t.comment(`restart over drift: ${JSON.stringify(count.byVerb)}`)
  t.equal(count.byVerb['PATCH-DRYRUN'], 1, 'a dry-run for the drifted object only')
  t.equal(count.byVerb.PATCH, 1, 'one apply')
  t.equal(count.writes(), 1, 'and no other write')
})

t.test('a restart after the Template dropped a key while no reconciler ran: every object loses it', async (t) => {
  await warmUp(t)
  const ns = await freshNamespace(t, admin, 'req-restart-drop')
  await createTemplate(admin, ns, 'five', {
    sync: { mode: 'revert' },
    gotemplate: NAMES.map((n) => configMapTemplate(`{{ .instance.name }}-${n}`, { v: '"1"', extra: '"x"' })).join('\n---\n'),
  })
  await createInstance(admin, ns, 'app', { templateRef: { name: 'five', namespace: ns } })
  await waitForCondition(admin, ns, 'app', 'Synced', 'True')
  await op.stop()
  await patchTemplateSpec(admin, ns, 'five', {
    gotemplate: NAMES.map((n) => configMapTemplate(`{{ .instance.name }}-${n}`, { v: '"1"' })).join('\n---\n'),
  })
  const count = countIn(ns)
  op = await start()
  await eventually('the dropped key removed from every object', async () => {
    for (const n of NAMES) {
      const cm = await admin.get<IdentifiedObject & { data?: Record<string, string> }>(cmPath(ns, `app-${n}`))
      if (cm.data?.extra !== undefined || cm.data?.v !== '1') return undefined
    }
    return true
  })
  await restartedPassDone(op, `${ns}/app`)
  t.comment(`restart over a dropped key: ${JSON.stringify(count.byVerb)}`)
  // The live objects still hold everything the new render sets; only our
  // managedFields entry says the apply removes a field.
  t.equal(count.byVerb['PATCH-DRYRUN'], 5, 'each object dry-run')
  t.equal(count.byVerb.PATCH, 5, 'and applied')
})

t.test('an object taken as absent from the synced cache that exists without our labels is a conflict, untouched', async (t) => {
  await warmUp(t)
  const ns = await freshNamespace(t, admin, 'req-conflict')
  await admin.request('POST', cmPath(ns), {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app-b' }, data: { mine: 'yes' } },
  })
  await fiveObjectTemplate(ns)
  await createInstance(admin, ns, 'app', { templateRef: { name: 'five', namespace: ns } })
  const bad = await waitForCondition(admin, ns, 'app', 'Applied', 'False', 'OwnershipConflict')
  t.match(condition(bad, 'Applied')?.message, `ConfigMap ${ns}/app-b`)
  const taken = await admin.get<IdentifiedObject & { data?: Record<string, string> }>(cmPath(ns, 'app-b'))
  t.same(taken.data, { mine: 'yes' }, 'existing object untouched')
  t.notOk(taken.metadata.labels?.[LABEL_INSTANCE_UID], 'no ownership stamped')
  t.equal(await admin.getOrUndefined(cmPath(ns, 'app-a')), undefined, 'nothing applied while the render conflicts')
})
