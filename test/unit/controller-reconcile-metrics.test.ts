// controller-runtime's reconcile metrics as runWorkers records them: one
// observation per handled key, by controller (the queue's name) and result,
// errors counted apart, every series present at 0 before the first reconcile;
// and what a pass did to rendered objects, counted from its change set.

import t from 'tap'
import { type ChangeSetEntry, objectError, type Operation } from '../../src/apply/changeset.ts'
import { countChanges, createChangeMetrics, createReconcileMetrics } from '../../src/controller/metrics.ts'
import { DEFAULT_COMPONENTS } from '../../src/api/writers.ts'
import { WorkQueue } from '../../src/controller/queue.ts'
import { runWorkers } from '../../src/controller/workers.ts'
import { BoundedLabelValues, MetricsRegistry, OTHER_LABEL_VALUE, readHistogram, readValue } from '../../src/telemetry/metrics.ts'

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

t.test('a pass counts its corrections, reported fights and failed requests under the bounded instance namespace', async (t) => {
  const registry = new MetricsRegistry()
  const m = createChangeMetrics(registry)
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'app', namespace: 'team-a' }
  const failed = (operation: Operation): ChangeSetEntry => ({ action: 'failed', ref, error: objectError(ref, operation, new Error('no')) })
  const changes: ChangeSetEntry[] = [
    { action: 'created', ref },
    { action: 'corrected', ref, changes: [], writers: ['kubectl-edit'] },
    { action: 'corrected', ref: { ...ref, name: 'other' }, changes: [], writers: ['kube-controller-manager', 'kubectl-patch'] },
    { action: 'corrected', ref: { ...ref, name: 'scaled' }, changes: [], writers: ['kube-controller-manager'] },
    { action: 'corrected', ref: { ...ref, name: 'restored' }, changes: [], writers: ['unknown'] },
    { action: 'fight', ref, notice: { kind: 'conflict', manager: 'kubectl-edit', streak: 3, nextInMs: 500 } },
    { action: 'fight', ref, notice: { kind: 'ended', manager: 'kubectl-edit', calmMs: 10_000 } },
    failed('apply'),
    failed('delete'),
  ]
  countChanges(m, 'team-a', changes)
  t.equal(await readValue(m.corrections, { instance_namespace: 'team-a', writer: 'other' }), 2, 'two put back after another writer')
  t.equal(await readValue(m.corrections, { instance_namespace: 'team-a', writer: 'component' }), 1, 'one after a component')
  t.equal(await readValue(m.corrections, { instance_namespace: 'team-a', writer: 'unknown' }), 1, 'one with no writer named')
  t.equal(await readValue(m.conflicts, { instance_namespace: 'team-a' }), 1, 'a fight that began; its end is not a conflict')
  t.equal(await readValue(m.failures, { instance_namespace: 'team-a', operation: 'apply' }), 1)
  t.equal(await readValue(m.failures, { instance_namespace: 'team-a', operation: 'delete' }), 1)
  countChanges(m, 'team-b', [{ action: 'updated', ref }])
  t.equal((await m.corrections.get()).values.length, 3, 'a pass without corrections adds no series (three writers in team-a)')
  const bounded = createChangeMetrics(new MetricsRegistry())
  const few = { ...bounded, namespaces: new BoundedLabelValues(1) }
  countChanges(few, 'team-a', [{ action: 'corrected', ref, changes: [], writers: ['kubectl'] }])
  countChanges(few, 'team-b', [{ action: 'corrected', ref, changes: [], writers: ['kubectl'] }])
  t.equal(
    await readValue(few.corrections, { instance_namespace: OTHER_LABEL_VALUE, writer: 'other' }),
    1,
    'namespaces past the limit count as _other',
  )
  const own = createChangeMetrics(new MetricsRegistry(), { ...DEFAULT_COMPONENTS, managers: ['my-autoscaler'] })
  countChanges(own, 'team-a', [{ action: 'corrected', ref, changes: [], writers: ['my-autoscaler'] }])
  t.equal(await readValue(own.corrections, { instance_namespace: 'team-a', writer: 'component' }), 1, 'the table given is the one read')
})
