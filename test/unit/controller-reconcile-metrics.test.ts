// controller-runtime's reconcile metrics as runWorkers records them: one
// observation per handled key, by controller (the queue's name) and result,
// errors counted apart, every series present at 0 before the first reconcile.

import t from 'tap'
import { createReconcileMetrics } from '../../src/controller/metrics.ts'
import { WorkQueue } from '../../src/controller/queue.ts'
import { runWorkers } from '../../src/controller/workers.ts'
import { readHistogram, MetricsRegistry, readValue } from '../../src/telemetry/metrics.ts'

t.test('success, requeue_after and error, per controller', async (t) => {
  const registry = new MetricsRegistry()
  const metrics = createReconcileMetrics(registry)
  const queue = new WorkQueue<string>({ name: 'templateinstances', registry, backoff: { baseMs: 60_000, maxMs: 60_000 } })
  const other = new WorkQueue<string>({ name: 'templates', registry })
  const stop = new AbortController()
  const handled: string[] = []
  const running = runWorkers(
    queue,
    2,
    async (key) => {
      handled.push(key)
      if (key.startsWith('fail')) throw new Error(`cannot reconcile ${key}`)
      return key.startsWith('later') ? { requeueAfterMs: 60_000 } : undefined
    },
    { signal: stop.signal, metrics },
  )
  const idle = runWorkers(other, 1, async () => undefined, { signal: stop.signal, metrics })

  const before = await registry.render()
  for (const result of ['success', 'requeue_after', 'error'])
    t.match(before, new RegExp(`^controller_runtime_reconcile_total\\{controller="templates",result="${result}"\\} 0$`, 'm'))
  t.match(before, /^controller_runtime_reconcile_errors_total\{controller="templates"\} 0$/m)
  t.match(before, /^controller_runtime_reconcile_time_seconds_count\{controller="templates",result="success"\} 0$/m)

  for (const k of ['ok-1', 'ok-2', 'ok-3', 'later-1', 'fail-1']) queue.add(k)
  while (handled.length < 5) await new Promise((r) => setImmediate(r))
  await new Promise((r) => setImmediate(r))

  const c = 'templateinstances'
  t.equal(await readValue(metrics.total, { controller: c, result: 'success' }), 3)
  t.equal(await readValue(metrics.total, { controller: c, result: 'requeue_after' }), 1)
  t.equal(await readValue(metrics.total, { controller: c, result: 'error' }), 1)
  t.equal(await readValue(metrics.errors, { controller: c }), 1)
  t.equal(await readValue(metrics.total, { controller: 'templates', result: 'success' }), 0, 'the other controller saw nothing')
  const success = await readHistogram(metrics.duration, { controller: c, result: 'success' })
  t.equal(success.count, 3)
  t.ok(success.sum >= 0 && success.sum < 5, `durations are in seconds (${success.sum})`)
  t.equal((await readHistogram(metrics.duration, { controller: c, result: 'error' })).count, 1)

  stop.abort()
  await Promise.all([running, idle])
})
