// The metrics registry of a process (src/telemetry/metrics.ts) on prom-client:
// text format, labels and escaping, histogram buckets, shared families,
// collect hooks, the process metrics, the readers, the errors for misuse,
// bounded label values and cache state (src/telemetry/caches.ts).

import t from 'tap'
import { register as globalRegistry } from 'prom-client'
import { type ObservedCache, observeCacheState } from '../../src/telemetry/caches.ts'
import {
  BoundedLabelValues,
  createProcessRegistry,
  MetricsRegistry,
  NAMESPACE_LABEL_LIMIT,
  OTHER_LABEL_VALUE,
  PROMETHEUS_CONTENT_TYPE,
  readHistogram,
  readValue,
} from '../../src/telemetry/metrics.ts'

const series = (text: string, name: string): string[] =>
  text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))

t.test('counter with labels renders HELP, TYPE and one line per series', async (t) => {
  const r = new MetricsRegistry()
  const c = r.counter({ name: 'reconciles_total', help: 'Reconciles by result.', labelNames: ['kind', 'result'] })
  c.inc({ kind: 'TemplateInstance', result: 'ok' })
  c.inc({ result: 'ok', kind: 'TemplateInstance' }, 2)
  c.inc({ kind: 'Template', result: 'error' })
  t.equal(await readValue(c, { kind: 'TemplateInstance', result: 'ok' }), 3, 'label order in the call does not matter')
  t.equal(await readValue(c, { kind: 'Template', result: 'ok' }), 0, 'an unseen series reads as 0')
  t.equal(
    await r.render(),
    [
      '# HELP reconciles_total Reconciles by result.',
      '# TYPE reconciles_total counter',
      'reconciles_total{kind="TemplateInstance",result="ok"} 3',
      'reconciles_total{kind="Template",result="error"} 1',
      '',
    ].join('\n'),
  )
})

t.test('a metric without labels is exposed as 0 before first use', async (t) => {
  const r = new MetricsRegistry()
  r.gauge({ name: 'leader', help: 'Whether this replica leads.' })
  r.counter({ name: 'writes_total', help: 'Writes.', labelNames: ['verb'] })
  const text = await r.render()
  t.match(text, /^leader 0$/m)
  t.notMatch(text, /^writes_total[ {]/m, 'a labelled metric has no series until one is used')
  t.match(text, /^# TYPE writes_total counter$/m)
})

t.test('gauge set, inc and dec', async (t) => {
  const r = new MetricsRegistry()
  const g = r.gauge({ name: 'in_flight', help: 'h', labelNames: ['queue'] })
  g.set({ queue: 'a' }, 5)
  g.inc({ queue: 'a' })
  g.dec({ queue: 'a' }, 3)
  g.inc({ queue: 'b' }, 0.5)
  t.equal(await readValue(g, { queue: 'a' }), 3)
  t.equal(await readValue(g, { queue: 'b' }), 0.5)
  t.strictSame(series(await r.render(), 'in_flight'), ['in_flight{queue="a"} 3', 'in_flight{queue="b"} 0.5'])
})

t.test('histogram buckets are cumulative and end with +Inf', async (t) => {
  const r = new MetricsRegistry()
  const h = r.histogram({ name: 'apply_seconds', help: 'Apply latency.', labelNames: ['verb'], buckets: [0.1, 1, 10] })
  for (const v of [0.05, 0.1, 0.5, 2, 20]) h.observe({ verb: 'apply' }, v)
  const snap = await readHistogram(h, { verb: 'apply' })
  t.equal(snap.count, 5)
  t.ok(Math.abs(snap.sum - 22.65) < 1e-9)
  t.strictSame(
    snap.buckets,
    [
      { le: 0.1, count: 2 },
      { le: 1, count: 3 },
      { le: 10, count: 4 },
    ],
    'a value equal to a bound falls in that bucket',
  )
  t.strictSame((await r.render()).trimEnd().split('\n'), [
    '# HELP apply_seconds Apply latency.',
    '# TYPE apply_seconds histogram',
    'apply_seconds_bucket{le="0.1",verb="apply"} 2',
    'apply_seconds_bucket{le="1",verb="apply"} 3',
    'apply_seconds_bucket{le="10",verb="apply"} 4',
    'apply_seconds_bucket{le="+Inf",verb="apply"} 5',
    'apply_seconds_sum{verb="apply"} 22.65',
    'apply_seconds_count{verb="apply"} 5',
  ])
  t.strictSame(await readHistogram(h, { verb: 'delete' }), {
    count: 0,
    sum: 0,
    buckets: [
      { le: 0.1, count: 0 },
      { le: 1, count: 0 },
      { le: 10, count: 0 },
    ],
  })
})

t.test('label values and help text are escaped', async (t) => {
  const r = new MetricsRegistry()
  const c = r.counter({ name: 'odd_total', help: 'back\\slash and\nnewline', labelNames: ['v'] })
  c.inc({ v: 'a "quoted" \\ value\nwith newline' })
  const text = await r.render()
  t.match(text, /^# HELP odd_total back\\\\slash and\\nnewline$/m)
  t.ok(text.includes('odd_total{v="a \\"quoted\\" \\\\ value\\nwith newline"} 1'), text)
})

t.test('special values', async (t) => {
  const r = new MetricsRegistry()
  const g = r.gauge({ name: 'v', help: 'h', labelNames: ['k'] })
  g.set({ k: 'inf' }, Infinity)
  g.set({ k: 'neg' }, -Infinity)
  g.set({ k: 'big' }, 1e21)
  g.set({ k: 'frac' }, -0.25)
  t.strictSame(series(await r.render(), 'v'), ['v{k="inf"} +Inf', 'v{k="neg"} -Inf', 'v{k="big"} 1e+21', 'v{k="frac"} -0.25'])
})

t.test('the registry returns the same metric for the same name and rejects a clash', async (t) => {
  const r = new MetricsRegistry()
  const a = r.counter({ name: 'x_total', help: 'h', labelNames: ['q'] })
  const b = r.counter({ name: 'x_total', help: 'h', labelNames: ['q'] })
  t.equal(a, b)
  t.throws(() => r.gauge({ name: 'x_total', help: 'h', labelNames: ['q'] }), /already registered as a counter/)
  t.throws(() => r.counter({ name: 'x_total', help: 'h', labelNames: ['other'] }), /labels/)
  r.histogram({ name: 'h_seconds', help: 'h', buckets: [1, 2] })
  t.throws(() => r.histogram({ name: 'h_seconds', help: 'h', buckets: [1, 3] }), /different buckets/)
  t.equal(r.prom.getSingleMetric('x_total'), a)
  t.equal(r.prom.getSingleMetric('missing'), undefined)
})

t.test('misuse fails with a message naming the metric', async (t) => {
  const r = new MetricsRegistry()
  t.throws(() => r.counter({ name: 'bad-name', help: 'h' }), /bad-name/)
  t.throws(() => r.counter({ name: 'ok', help: 'h', labelNames: ['__reserved'] }), /ok.*__reserved/)
  t.throws(() => r.counter({ name: 'ok', help: 'h', labelNames: ['a', 'a'] }), /ok.*repeated/)
  t.throws(() => r.histogram({ name: 'h', help: 'h', labelNames: ['le'] }), /"h".*le/)
  t.throws(() => r.histogram({ name: 'h', help: 'h', buckets: [2, 1] }), /h.*increase/)
  t.throws(() => r.histogram({ name: 'h', help: 'h', buckets: [1, Infinity] }), /h.*finite/)
  t.throws(() => r.histogram({ name: 'h', help: 'h', buckets: [] }), /h.*at least one/)
  t.throws(() => createProcessRegistry().gauge({ name: 'process_resident_memory_bytes', help: 'h' }), /process_resident_memory_bytes/)
  // Past creation the messages are prom-client's own.
  const c = r.counter({ name: 'c_total', help: 'h', labelNames: ['a'] })
  t.throws(() => c.inc({ a: 'x' }, -1), /decrease/)
  t.throws(() => c.inc({ b: 'x' } as never), /"b" is not included/)
  t.throws(() => c.inc({ a: 'x', b: 'y' } as never), /"b" is not included/)
  t.throws(() => r.histogram({ name: 'n', help: 'h' }).observe(Number.NaN), /not a valid number/)
})

t.test('label values that run into each other stay separate series', async (t) => {
  const r = new MetricsRegistry()
  const c = r.counter({ name: 'pairs_total', help: 'h', labelNames: ['a', 'b'] })
  c.inc({ a: 'x:1', b: 'y' })
  c.inc({ a: 'x', b: '1:y' })
  c.inc({ a: 'x', b: '1:y' })
  c.inc({ a: '', b: 'x1:y' })
  c.inc({ b: 'y', a: 'x:1' })
  t.equal(await readValue(c, { a: 'x:1', b: 'y' }), 2, 'label order in the call does not matter')
  t.equal(await readValue(c, { a: 'x', b: '1:y' }), 2)
  t.equal(await readValue(c, { a: '', b: 'x1:y' }), 1)
  t.equal(series(await r.render(), 'pairs_total').length, 3)
})

t.test('histogram observations land in the first bucket that holds them', async (t) => {
  const h = new MetricsRegistry().histogram({ name: 'h_seconds', help: 'h', buckets: [0.1, 1, 10] })
  for (const v of [0.05, 0.1, 0.5, 1, 9, 10, 11, 1e9]) h.observe(v)
  const s = await readHistogram(h)
  t.same(
    s.buckets.map((b) => b.count),
    [2, 4, 6],
    'cumulative: le=0.1 holds 0.05 and 0.1; le=1 adds 0.5 and 1; le=10 adds 9 and 10',
  )
  t.equal(s.count, 8, 'values above the last bound count only in +Inf')
})

t.test('collect hooks run before each render and can be removed', async (t) => {
  const r = new MetricsRegistry()
  const g = r.gauge({ name: 'age_seconds', help: 'h' })
  let age = 1
  const stop = r.onCollect(() => g.set(age))
  t.match(await r.render(), /^age_seconds 1$/m)
  age = 2
  t.match(await r.render(), /^age_seconds 2$/m)
  stop()
  age = 3
  t.match(await r.render(), /^age_seconds 2$/m, 'no longer refreshed')
})

t.test('a collect hook that throws does not fail the scrape', async (t) => {
  const r = new MetricsRegistry()
  const g = r.gauge({ name: 'fine', help: 'h' })
  r.onCollect(() => {
    throw new Error('broken collector')
  })
  r.onCollect(() => g.set(7))
  t.match(await r.render(), /^fine 7$/m, 'the other hooks still ran')
})

t.test('remove drops one series; reset drops all of them', async (t) => {
  const r = new MetricsRegistry()
  const c = r.counter({ name: 'r_total', help: 'h', labelNames: ['q'] })
  c.inc({ q: 'a' })
  c.inc({ q: 'b' })
  c.remove({ q: 'a' })
  t.strictSame(series(await r.render(), 'r_total'), ['r_total{q="b"} 1'])
  c.reset()
  t.strictSame(series(await r.render(), 'r_total'), [])
  c.inc({ q: 'a' })
  c.inc({ q: 'b' }, 2)
  t.strictSame(
    series(await r.render(), 'r_total'),
    ['r_total{q="a"} 1', 'r_total{q="b"} 2'],
    'series removed then observed again start from zero, once each',
  )

  const two = r.counter({ name: 't_total', help: 'h', labelNames: ['x', 'y'] })
  two.inc({ x: 'a', y: '1' })
  two.inc({ x: 'a', y: '2' })
  two.remove({ x: 'a', y: '1' })
  two.inc({ x: 'a', y: '1' })
  t.equal(await readValue(two, { x: 'a', y: '1' }), 1)
  t.equal(await readValue(two, { x: 'a', y: '2' }), 1, 'a sibling series is untouched')
})

t.test('an empty registry renders no metric; the content type names format 0.0.4', async (t) => {
  t.equal((await new MetricsRegistry().render()).trim(), '')
  t.match(PROMETHEUS_CONTENT_TYPE, /^text\/plain; version=0\.0\.4/)
  t.equal(new MetricsRegistry().contentType, PROMETHEUS_CONTENT_TYPE)
})

t.test("the process registry carries prom-client's process and Node.js metrics; others do not", async (t) => {
  const text = await createProcessRegistry().render()
  for (const name of [
    'process_cpu_seconds_total',
    'process_start_time_seconds',
    'process_resident_memory_bytes',
    'process_open_fds',
    'nodejs_heap_size_used_bytes',
    'nodejs_eventloop_lag_seconds',
    'nodejs_heap_space_size_used_bytes',
    'nodejs_gc_duration_seconds',
  ])
    t.match(text, new RegExp(`^# TYPE ${name} `, 'm'), name)
  const rss = /^process_resident_memory_bytes (\d+)$/m.exec(text)?.[1]
  t.ok(Number(rss) > 10 * 1024 * 1024, `resident memory is a real figure (${rss})`)
  t.notMatch(await new MetricsRegistry().render(), /process_|nodejs_/, 'a private registry has only what was put in it')
})

t.test("nothing is registered in prom-client's global registry", async (t) => {
  const r = createProcessRegistry()
  r.counter({ name: 'mine_total', help: 'h' }).inc()
  t.equal((await globalRegistry.metrics()).trim(), '')
  t.match(await r.render(), /^mine_total 1$/m)
})

t.test('a bounded label keeps its first values and reports the rest as _other', async (t) => {
  const ns = new BoundedLabelValues(2)
  t.equal(ns.of('team-a'), 'team-a')
  t.equal(ns.of('team-b'), 'team-b')
  t.equal(ns.of('team-c'), OTHER_LABEL_VALUE, 'past the limit')
  t.equal(ns.of('team-a'), 'team-a', 'a kept value stays itself')
  t.equal(ns.of('team-d'), OTHER_LABEL_VALUE)
  t.equal(new BoundedLabelValues().limit, NAMESPACE_LABEL_LIMIT)
  t.throws(() => new BoundedLabelValues(-1), RangeError)
})

t.test('caches that share a label report together, and a label no cache carries any more is dropped', async (t) => {
  const r = new MetricsRegistry()
  const m = {
    synced: r.gauge({ name: 'c_synced', help: 'h', labelNames: ['cache'] }),
    objects: r.gauge({ name: 'c_objects', help: 'h', labelNames: ['cache'] }),
    recoveries: r.counter({ name: 'c_recoveries_total', help: 'h', labelNames: ['cache', 'kind'] }),
  }
  const cache = (name: string, synced: boolean, size: number, errors: number): ObservedCache => ({
    name,
    hasSynced: () => synced,
    size: () => size,
    recoveries: { error: errors },
  })
  let caches = [cache('drift a', true, 3, 1), cache('drift b', false, 4, 2)]
  const stop = observeCacheState(r, m, () => caches.map((c) => ['drift', c] as const))
  t.teardown(stop)
  let text = await r.render()
  t.match(text, 'c_synced{cache="drift"} 0', 'synced only when every cache is')
  t.match(text, 'c_objects{cache="drift"} 7', 'objects added up')
  t.match(text, 'c_recoveries_total{cache="drift",kind="error"} 3', 'recoveries added up')
  // One watch stops, a new one starts: only what is new since the last scrape is added.
  caches = [cache('drift c', true, 1, 1)]
  text = await r.render()
  t.match(text, 'c_synced{cache="drift"} 1')
  t.match(text, 'c_recoveries_total{cache="drift",kind="error"} 4')
  caches = []
  text = await r.render()
  t.notMatch(text, 'c_synced{', 'no watch left: the label is gone')
  t.match(text, 'c_recoveries_total{cache="drift",kind="error"} 4', 'a counter keeps its total')
})
