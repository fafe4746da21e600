// The event recorder against the real API server: the Event's fields as
// stored, aggregation of repeats into one Event, cluster-scoped objects,
// truncation, the per-object limit, and failures that never reach the caller.

import t from 'tap'
import { adminClient, freshNamespace } from './helpers/cluster.ts'
import { EventRecorder, EVENT_MESSAGE_LIMIT, type InvolvedObject } from '../../src/kube/events.ts'
import type { LogFn } from '../../src/telemetry/log.ts'

const client = adminClient()
t.teardown(() => client.close())

interface CoreEvent {
  metadata: { name: string; namespace: string }
  involvedObject: Record<string, string | undefined>
  reason: string
  message: string
  type: string
  count: number
  firstTimestamp: string
  lastTimestamp: string
  source: { component?: string; host?: string }
  reportingComponent: string
  reportingInstance: string
}

const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/

async function aConfigMap(ns: string, name: string): Promise<InvolvedObject> {
  const cm = await client.request<{ metadata: { uid: string; resourceVersion: string } }>('POST', `/api/v1/namespaces/${ns}/configmaps`, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: {} },
  })
  return { apiVersion: 'v1', kind: 'ConfigMap', name, namespace: ns, uid: cm.metadata.uid, resourceVersion: cm.metadata.resourceVersion }
}

async function eventsFor(ns: string, uid: string): Promise<CoreEvent[]> {
  const list = await client.get<{ items: CoreEvent[] }>(`/api/v1/namespaces/${ns}/events`, { fieldSelector: `involvedObject.uid=${uid}` })
  return list.items
}

t.test('an Event is created with the involved object, reason, message, type and reporter', async (t) => {
  const ns = await freshNamespace(t, client)
  const obj = await aConfigMap(ns, 'rendered')
  const rec = new EventRecorder({ client, reportingInstance: 'reconciler-0', host: 'node-1' })
  await rec.record(obj, 'Warning', 'DriftReverted', 'data.v was changed by alice and put back')
  const events = await eventsFor(ns, obj.uid as string)
  t.equal(events.length, 1)
  const e = events[0] as CoreEvent
  t.equal(e.metadata.namespace, ns)
  t.match(e.metadata.name, /^rendered\.[0-9a-f]+$/)
  t.match(e.involvedObject, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    name: 'rendered',
    namespace: ns,
    uid: obj.uid,
    resourceVersion: obj.resourceVersion,
  })
  t.equal(e.type, 'Warning')
  t.equal(e.reason, 'DriftReverted')
  t.equal(e.message, 'data.v was changed by alice and put back')
  t.equal(e.count, 1)
  t.match(e.firstTimestamp, TIME)
  t.equal(e.lastTimestamp, e.firstTimestamp)
  t.strictSame(e.source, { component: 'template-sync', host: 'node-1' })
  t.equal(e.reportingComponent, 'template-sync')
  t.equal(e.reportingInstance, 'reconciler-0')
  t.strictSame(rec.stats, { created: 1, aggregated: 0, limited: 0, failed: 0 })
})

t.test('a repeat within the window bumps count on the same Event', async (t) => {
  const ns = await freshNamespace(t, client)
  const obj = await aConfigMap(ns, 'repeated')
  const rec = new EventRecorder({ client, reportingInstance: 'reconciler-0' })
  await rec.record(obj, 'Warning', 'ApplyFailed', 'conflict on spec.replicas')
  const [first] = await eventsFor(ns, obj.uid as string)
  await new Promise((r) => setTimeout(r, 1100)) // lastTimestamp has whole-second precision
  await rec.record(obj, 'Warning', 'ApplyFailed', 'conflict on spec.replicas')
  const events = await eventsFor(ns, obj.uid as string)
  t.equal(events.length, 1, 'still one Event')
  const e = events[0] as CoreEvent
  t.equal(e.metadata.name, first?.metadata.name)
  t.equal(e.count, 2)
  t.equal(e.firstTimestamp, first?.firstTimestamp)
  t.ok(e.lastTimestamp > e.firstTimestamp, `lastTimestamp moved on (${e.firstTimestamp} -> ${e.lastTimestamp})`)

  await rec.record(obj, 'Warning', 'ApplyFailed', 'a different message')
  await rec.record(obj, 'Normal', 'ApplyFailed', 'conflict on spec.replicas')
  t.equal((await eventsFor(ns, obj.uid as string)).length, 3, 'a different message or type is a different Event')
  t.strictSame(rec.stats, { created: 3, aggregated: 1, limited: 0, failed: 0 })
})

t.test('concurrent repeats are aggregated without duplicates', async (t) => {
  const ns = await freshNamespace(t, client)
  const obj = await aConfigMap(ns, 'burst')
  const rec = new EventRecorder({ client, reportingInstance: 'reconciler-0' })
  await Promise.all(Array.from({ length: 5 }, () => rec.record(obj, 'Normal', 'Applied', 'applied 3 objects')))
  const events = await eventsFor(ns, obj.uid as string)
  t.equal(events.length, 1)
  t.equal(events[0]?.count, 5)
})

t.test('after the aggregation window a repeat starts a new Event', async (t) => {
  const ns = await freshNamespace(t, client)
  const obj = await aConfigMap(ns, 'window')
  let skew = 0
  const rec = new EventRecorder({ client, reportingInstance: 'reconciler-0', now: () => Date.now() + skew })
  await rec.record(obj, 'Normal', 'Applied', 'same')
  skew = 10 * 60_000 + 1
  await rec.record(obj, 'Normal', 'Applied', 'same')
  const events = await eventsFor(ns, obj.uid as string)
  t.equal(events.length, 2)
  t.strictSame(
    events.map((e) => e.count),
    [1, 1],
  )
})

t.test('an Event about a cluster-scoped object goes to the default namespace', async (t) => {
  const ns = await freshNamespace(t, client)
  const nsObj = await client.get<{ metadata: { uid: string } }>(`/api/v1/namespaces/${ns}`)
  const rec = new EventRecorder({ client, reportingInstance: 'reconciler-0' })
  await rec.record(
    { apiVersion: 'v1', kind: 'Namespace', name: ns, uid: nsObj.metadata.uid },
    'Normal',
    'TargetNamespaceReady',
    `namespace ${ns} is ready`,
  )
  const events = await eventsFor('default', nsObj.metadata.uid)
  t.equal(events.length, 1)
  t.equal(events[0]?.metadata.namespace, 'default')
  t.equal(events[0]?.involvedObject.namespace, undefined, 'the involved object has no namespace')
  t.teardown(async () => {
    for (const e of events) await client.request('DELETE', `/api/v1/namespaces/default/events/${e.metadata.name}`).catch(() => {})
  })
})

t.test(
  'long messages are cut to 1024 bytes of UTF-8 (so at most 1024 characters); odd object names still make valid Event names',
  async (t) => {
    const ns = await freshNamespace(t, client)
    const obj = await aConfigMap(ns, 'long')
    const rec = new EventRecorder({ client, reportingInstance: 'reconciler-0' })
    await rec.record(obj, 'Warning', 'RenderFailed', 'é'.repeat(3000))
    const [e] = await eventsFor(ns, obj.uid as string)
    t.ok(
      e && Buffer.byteLength(e.message, 'utf8') <= EVENT_MESSAGE_LIMIT && e.message.length <= EVENT_MESSAGE_LIMIT,
      `stored message has ${e?.message.length} characters`,
    )
    t.ok(e?.message.endsWith('...'), 'the cut is marked')
    t.notOk(e?.message.includes('\uFFFD'), 'no character was split')
    const ascii = await aConfigMap(ns, 'long-ascii')
    await rec.record(ascii, 'Warning', 'RenderFailed', 'x'.repeat(5000))
    const [a] = await eventsFor(ns, ascii.uid as string)
    t.equal(a?.message.length, 1024, 'ASCII text is cut to exactly 1024 characters')
    t.ok(a?.message.endsWith('x...'))

    // A ClusterRole-style name with a colon and capitals is not a valid Event name as is.
    const odd = { apiVersion: 'v1', kind: 'ConfigMap', name: 'System:Odd', namespace: ns, uid: '00000000-0000-4000-8000-00000000beef' }
    await rec.record(odd, 'Normal', 'Seen', 'odd name')
    const [o] = await eventsFor(ns, odd.uid)
    t.match(o?.metadata.name, /^system-odd\.[0-9a-f]+$/)
    t.equal(o?.involvedObject.name, 'System:Odd', 'the involved object keeps its real name')
    t.equal(rec.stats.failed, 0)
  },
)

t.test('the per-object limit drops the excess, other objects are unaffected', async (t) => {
  const ns = await freshNamespace(t, client)
  const noisy = await aConfigMap(ns, 'noisy')
  const calm = await aConfigMap(ns, 'calm')
  const rec = new EventRecorder({ client, reportingInstance: 'reconciler-0', perObjectLimit: { events: 5, windowMs: 60_000 } })
  for (let i = 0; i < 8; i++) await rec.record(noisy, 'Normal', `Step${i}`, `step ${i}`)
  await rec.record(calm, 'Normal', 'Step0', 'step 0')
  t.equal((await eventsFor(ns, noisy.uid as string)).length, 5)
  t.equal((await eventsFor(ns, calm.uid as string)).length, 1)
  t.equal(rec.stats.limited, 3)
})

t.test('the default limit is 25 events per object per minute', async (t) => {
  const ns = await freshNamespace(t, client)
  const obj = await aConfigMap(ns, 'default-limit')
  const rec = new EventRecorder({ client, reportingInstance: 'reconciler-0' })
  await Promise.all(Array.from({ length: 30 }, (_, i) => rec.record(obj, 'Normal', `R${i}`, 'm')))
  t.equal((await eventsFor(ns, obj.uid as string)).length, 25)
  t.equal(rec.stats.limited, 5)
})

t.test('a failed write is logged and never reaches the caller', async (t) => {
  const logs: { level: string; msg: string; fields?: Readonly<Record<string, unknown>> }[] = []
  const log: LogFn = (level, msg, fields) => logs.push({ level, msg, ...(fields ? { fields } : {}) })
  const rec = new EventRecorder({ client, reportingInstance: 'reconciler-0', log })
  const missing = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    name: 'x',
    namespace: 'no-such-namespace-for-events',
    uid: '00000000-0000-4000-8000-000000000404',
  }
  await t.resolves(rec.record(missing, 'Warning', 'RenderFailed', 'boom'))
  await rec.flush()
  t.equal(rec.stats.failed, 1)
  t.equal(logs.length, 1)
  t.match(logs[0], { level: 'warn', fields: { object: 'ConfigMap/no-such-namespace-for-events/x', reason: 'RenderFailed' } })
  t.match(String(logs[0]?.fields?.err), /404/, 'the API error is passed on for the log')

  const throwing = new EventRecorder({
    client: {
      request: () => {
        throw new Error('synchronous failure')
      },
    },
    reportingInstance: 'reconciler-0',
    log: () => {
      throw new Error('and a broken logger')
    },
  })
  await t.resolves(throwing.record(missing, 'Normal', 'X', 'y'), 'even a client and a logger that throw do not reach the caller')
  t.equal(throwing.stats.failed, 1)
})
