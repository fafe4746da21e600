// BENCH_INSTANCES (default 100) TemplateInstances x 5 ConfigMaps (sync mode
// revert) against a local control plane and the real reconciler process.
// Baseline, in the same run: applying the same objects directly with one
// server-side apply each (the least work any tool could do). Rounds
// (BENCH_ROUNDS, default all three, comma-separated):
//  - converge: time until every instance is Ready and Synced, API requests
//    per instance by verb, writes during BENCH_REST_MS at rest, reconciler RSS;
//  - restart: the reconciler is stopped (SIGTERM: it hands its Lease over) and
//    a new one started; time until its first full pass is done (every
//    instance taken from the queue, nothing queued or in flight, every
//    instance Ready and Synced), its requests and writes meanwhile;
//  - fairness: one Template edit queues a re-render of every instance; while
//    it runs, a revert object of another Template is edited a few times, and
//    the time to its correction is compared with the same edit at rest.
// Leadership losses are counted over all rounds. Progress is followed with
// watches, never by listing every instance.

import {
  startOperator,
  sleep,
  metrics,
  scrape,
  writesOf,
  statusWritesOf,
  total,
  delta,
  perInstance,
  rssMiB,
  percentile,
} from './lib/operator.ts'
import { InstanceStates, ChangeCounter } from './lib/watch.ts'
import { CONTENT_APPLY, CONTENT_MERGE, type KubeClient } from '../src/kube/client.ts'
import { API_VERSION, GROUP, VERSION } from '../src/api/names.ts'
import type { KubeObject } from '../src/api/meta.ts'
import { Reflector } from '../src/kube/reflector.ts'
import { parallel } from '../test/fixtures/parallel.ts'

const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 100)
const PER = 5
const REST_MS = Number(process.env.BENCH_REST_MS ?? 60_000)
const ROUNDS = new Set((process.env.BENCH_ROUNDS ?? 'converge,restart,fairness').split(',').map((r) => r.trim()))
// Proportional to the work, so 10,000 instances get the time they need and 100 fail fast.
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? Math.max(600, INSTANCES * 0.3)) * 1000
const log = (m: string): void => console.log(`[converge] ${m}`)
const base = `/apis/${GROUP}/${VERSION}`
const TI = `${base}/namespaces/bench-a/templateinstances`
/** Objects the fairness round edits: 4 at rest, up to 8 under load. */
const TARGETS = 12

async function createTemplate(client: KubeClient, name: string, spec: Record<string, unknown>): Promise<void> {
  await client.request('POST', `${base}/namespaces/bench-tpl/templates`, {
    body: { apiVersion: API_VERSION, kind: 'Template', metadata: { name }, spec },
  })
}

async function createInstance(client: KubeClient, ns: string, name: string, template: string): Promise<void> {
  await client.request('POST', `${base}/namespaces/${ns}/templateinstances`, {
    body: {
      apiVersion: API_VERSION,
      kind: 'TemplateInstance',
      metadata: { name },
      spec: { templateRef: { name: template, namespace: 'bench-tpl' } },
    },
  })
}

/** The reconciler's queue, from its metrics endpoint. */
async function queueState(url: string): Promise<{ adds: number; depth: number; low: number; inFlight: boolean }> {
  let adds = 0
  let depth = 0
  let low = -1
  let longest = 0
  for (const [name, labels, v] of await scrape(url)) {
    if (labels.name !== 'templateinstances') continue
    if (name === 'workqueue_adds_total') adds = v
    else if (name === 'workqueue_depth') depth = v
    else if (name === 'workqueue_depth_by_priority' && labels.priority === '-100') low = v
    else if (name === 'workqueue_longest_running_processor_seconds') longest = v
  }
  // Without priorities (an older reconciler) every queued key counts.
  return { adds, depth, low: low < 0 ? depth : low, inFlight: longest > 0 }
}

const op = await startOperator(log)
const { client } = op
const states = new InstanceStates(client, TI)
const farTarget = new Reflector(client, { path: '/api/v1/namespaces/bench-far/configmaps', name: 'bench target' })
const figures: Record<string, unknown> = { bench: 'converge', instances: INSTANCES, objects: INSTANCES * PER }
try {
  for (const ns of ['bench-tpl', 'bench-a', 'bench-base', 'bench-far'])
    await client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } })
  const docs = Array.from(
    { length: PER },
    (_, i) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .instance.name }}-${i}\ndata:\n  index: "${i}"\n  owner: {{ .parameters.owner | quote }}\n  payload: {{ repeat 40 "x" | quote }}`,
  )
  const fiveSpec = (owner: string): Record<string, unknown> => ({
    sync: { mode: 'revert' },
    parameters: [{ name: 'owner', value: owner }],
    targetNamespaces: { explicit: { allow: { literal: ['*'] } } },
    gotemplate: docs.join('\n---\n'),
  })
  await createTemplate(client, 'five', fiveSpec('bench'))
  // The fairness round's targets: revert objects of another Template, in another namespace. Each is
  // edited once: edits of one object in quick succession are a fight, which is corrected with backoff.
  await createTemplate(client, 'one', {
    sync: { mode: 'revert' },
    targetNamespaces: { explicit: { allow: { literal: ['*'] } } },
    gotemplate: Array.from(
      { length: TARGETS },
      (_, i) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: target-${i}\ndata:\n  color: blue`,
    ).join('\n---\n'),
  })
  await createInstance(client, 'bench-far', 'target', 'one')

  // Baseline: the same objects, one apply each, 4 at a time.
  const tb = Date.now()
  const baseline = Array.from({ length: INSTANCES * PER }, (_, k) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `b${Math.floor(k / PER)}-${k % PER}`, namespace: 'bench-base' },
    data: { index: String(k % PER), owner: 'bench', payload: 'x'.repeat(40) },
  }))
  await parallel(baseline, 4, (o) =>
    client.request('PATCH', `/api/v1/namespaces/bench-base/configmaps/${o.metadata.name}`, {
      body: o,
      contentType: CONTENT_APPLY,
      query: { fieldManager: 'bench-baseline', force: true },
    }),
  )
  const baselineMs = Date.now() - tb
  figures.baseline_ms = baselineMs
  log(`baseline: ${INSTANCES * PER} direct applies in ${baselineMs} ms`)

  await states.start()
  farTarget.start()
  await farTarget.waitForSync()
  const targetColor = (i: number): string | undefined =>
    (farTarget.get('bench-far', `target-${i}`) as (KubeObject & { data?: Record<string, string> }) | undefined)?.data?.color
  const until = async (what: string, check: () => boolean, timeoutMs = TIMEOUT_MS): Promise<void> => {
    const deadline = Date.now() + timeoutMs
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`${what}: not reached after ${timeoutMs / 1000} s`)
      await sleep(5)
    }
  }
  await until(
    'the fairness targets are rendered',
    () => Array.from({ length: TARGETS }, (_, i) => targetColor(i)).every((c) => c === 'blue'),
    60_000,
  )

  // --- converge
  const m0 = await metrics(op.metricsUrl)
  const t0 = Date.now()
  await parallel(
    Array.from({ length: INSTANCES }, (_, i) => `i${i}`),
    4,
    (name) => createInstance(client, 'bench-a', name, 'five'),
  )
  await states.until(`${INSTANCES} instances Ready and Synced`, () => states.ready() === INSTANCES, TIMEOUT_MS)
  const convergeMs = Date.now() - t0
  const m1 = await metrics(op.metricsUrl)
  const requests = total(m1) - total(m0)
  const verbs = delta(m1, m0)
  Object.assign(figures, {
    converge_ms: convergeMs,
    ratio: Number((convergeMs / baselineMs).toFixed(2)),
    requests_per_instance: Number((requests / INSTANCES).toFixed(1)),
    requests_per_instance_by_verb: perInstance(verbs, INSTANCES),
  })
  log(`converged: ${INSTANCES} instances (${INSTANCES * PER} objects) Ready+Synced in ${convergeMs} ms`)
  log(`requests while converging: ${requests} (${(requests / INSTANCES).toFixed(1)} per instance) ${JSON.stringify(verbs)}`)
  await sleep(3000)
  const m2 = await metrics(op.metricsUrl)
  await sleep(REST_MS)
  const m3 = await metrics(op.metricsUrl)
  const mem = rssMiB(op.reconciler.pid)
  Object.assign(figures, { rest_writes: writesOf(m3) - writesOf(m2), rest_s: REST_MS / 1000, rss_mib: mem.rss, peak_rss_mib: mem.peak })
  log(`writes in ${REST_MS / 1000} s at rest: ${figures.rest_writes}; reconciler RSS ${mem.rss} MiB (peak ${mem.peak} MiB)`)

  // --- restart
  if (ROUNDS.has('restart')) {
    const objectChanges = new ChangeCounter(client, '/api/v1/namespaces/bench-a/configmaps')
    await objectChanges.start()
    const updatesBefore = states.updates
    const startedAt = await op.replaceReconciler()
    let stable = 0
    for (;;) {
      const q = await queueState(op.metricsUrl)
      const done = q.adds >= INSTANCES + 1 && q.depth === 0 && !q.inFlight && states.ready() === INSTANCES
      stable = done ? stable + 1 : 0
      if (stable === 2) break
      if (Date.now() - startedAt > TIMEOUT_MS) throw new Error(`restart: first pass not done after ${TIMEOUT_MS / 1000} s`)
      await sleep(250)
    }
    // Two polls 250 ms apart: the first one that saw the pass done is when it ended.
    const restartMs = Date.now() - startedAt - 250
    const mr = await metrics(op.metricsUrl)
    await objectChanges.stop()
    const rmem = rssMiB(op.reconciler.pid)
    Object.assign(figures, {
      restart_ms: restartMs,
      restart_writes: writesOf(mr),
      restart_status_writes: statusWritesOf(mr),
      restart_object_changes: objectChanges.changes,
      restart_instance_updates: states.updates - updatesBefore,
      restart_requests_per_instance_by_verb: perInstance(delta(mr), INSTANCES),
      restart_peak_rss_mib: rmem.peak,
    })
    log(
      `restart: first pass of a new reconciler done in ${restartMs} ms; ${writesOf(mr)} writes (${statusWritesOf(mr)} to status), ` +
        `${objectChanges.changes} changes of rendered objects, ${figures.restart_instance_updates} instance updates; ${JSON.stringify(delta(mr))}`,
    )
  }

  // --- fairness
  if (ROUNDS.has('fairness')) {
    let nextTarget = 0
    /** Edits the next target and resolves with the time until the watch shows it corrected. */
    const correction = async (): Promise<number> => {
      const i = nextTarget++
      const t = performance.now()
      await client.request('PATCH', `/api/v1/namespaces/bench-far/configmaps/target-${i}`, {
        body: { data: { color: 'red' } },
        contentType: CONTENT_MERGE,
        query: { fieldManager: 'bench-editor' },
      })
      await until(`target-${i} corrected`, () => targetColor(i) === 'blue')
      return performance.now() - t
    }
    const atRest: number[] = []
    for (let i = 0; i < 4; i++) {
      atRest.push(await correction())
      await sleep(300)
    }
    const tplBefore = await client.get<{ metadata: { generation: number } }>(`${base}/namespaces/bench-tpl/templates/five`)
    const generation = tplBefore.metadata.generation + 1
    const tr = Date.now()
    await client.request('PATCH', `${base}/namespaces/bench-tpl/templates/five`, {
      body: { spec: fiveSpec('bench-2') },
      contentType: CONTENT_MERGE,
    })
    // Wait for the fan-out to be queued: most instances waiting behind the ones being re-rendered.
    for (let i = 0; i < 100; i++) {
      if ((await queueState(op.metricsUrl)).low >= Math.min(INSTANCES / 2, INSTANCES - 16)) break
      await sleep(20)
    }
    const underLoad: number[] = []
    const queuedAt: number[] = []
    const doneAt: number[] = []
    while (nextTarget < TARGETS && states.readyAt(generation) < INSTANCES * 0.9) {
      underLoad.push(await correction())
      queuedAt.push((await queueState(op.metricsUrl)).low)
      doneAt.push(states.readyAt(generation))
      await sleep(200)
    }
    await states.until(`${INSTANCES} instances re-rendered`, () => states.readyAt(generation) === INSTANCES, TIMEOUT_MS)
    const rerenderMs = Date.now() - tr
    atRest.sort((a, b) => a - b)
    const sorted = [...underLoad].sort((a, b) => a - b)
    Object.assign(figures, {
      fairness_rerender_ms: rerenderMs,
      fairness_corrections: underLoad.length,
      fairness_correction_p50_ms: Math.round(percentile(sorted, 50)),
      fairness_correction_max_ms: Math.round(sorted.at(-1) ?? 0),
      fairness_correction_at_rest_p50_ms: Math.round(percentile(atRest, 50)),
      fairness_queued_behind: queuedAt,
      fairness_rerendered_before: doneAt,
    })
    log(
      `fairness: ${INSTANCES} re-renders in ${rerenderMs} ms; corrections meanwhile ${underLoad.map((n) => Math.round(n)).join(', ')} ms ` +
        `with ${queuedAt.join(', ')} re-renders still queued (${doneAt.join(', ')} done); at rest ${atRest.map((n) => Math.round(n)).join(', ')} ms`,
    )
  }

  const lease = await client.get<{ spec?: { leaseTransitions?: number } }>(
    '/apis/coordination.k8s.io/v1/namespaces/default/leases/template-sync-reconciler',
  )
  Object.assign(figures, {
    leadership_losses: op.leadershipLosses(),
    reconciler_exits: op.unexpectedExits(),
    lease_transitions: lease.spec?.leaseTransitions ?? 0,
  })
  console.log(JSON.stringify(figures))
} finally {
  await Promise.all([states.stop(), farTarget.stop()])
  await op.stop()
}
