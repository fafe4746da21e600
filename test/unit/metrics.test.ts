// The Prometheus registry: text format, labels and escaping, histogram
// buckets, shared families, collect hooks and the errors for misuse.

import t from 'tap'
import { Registry, Counter, Gauge, Histogram, formatValue, PROMETHEUS_CONTENT_TYPE } from '../../src/controller/metrics.ts'

t.test('counter with labels renders HELP, TYPE and one line per series', async (t) => {
  const r = new Registry()
  const c = r.counter({ name: 'reconciles_total', help: 'Reconciles by result.', labelNames: ['kind', 'result'] })
  c.inc({ kind: 'TemplateInstance', result: 'ok' })
  c.inc({ result: 'ok', kind: 'TemplateInstance' }, 2)
  c.inc({ kind: 'Template', result: 'error' })
  t.equal(c.get({ kind: 'TemplateInstance', result: 'ok' }), 3, 'label order in the call does not matter')
  t.equal(c.get({ kind: 'Template', result: 'ok' }), 0, 'an unseen series reads as 0')
  t.equal(
    r.render(),
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
  const r = new Registry()
  r.gauge({ name: 'leader', help: 'Whether this replica leads.' })
  r.counter({ name: 'writes_total', help: 'Writes.', labelNames: ['verb'] })
  const text = r.render()
  t.match(text, /^leader 0$/m)
  t.notMatch(text, /^writes_total[ {]/m, 'a labelled metric has no series until one is used')
  t.match(text, /^# TYPE writes_total counter$/m)
})

t.test('gauge set, inc and dec', async (t) => {
  const g = new Gauge({ name: 'in_flight', help: 'h', labelNames: ['queue'] })
  g.set(5, { queue: 'a' })
  g.inc({ queue: 'a' })
  g.dec({ queue: 'a' }, 3)
  g.inc({ queue: 'b' }, 0.5)
  t.equal(g.get({ queue: 'a' }), 3)
  t.equal(g.get({ queue: 'b' }), 0.5)
  const out: string[] = []
  g.render(out)
  t.strictSame(out.slice(2), ['in_flight{queue="a"} 3', 'in_flight{queue="b"} 0.5'])
})

t.test('histogram buckets are cumulative and end with +Inf', async (t) => {
  const h = new Histogram({ name: 'apply_seconds', help: 'Apply latency.', labelNames: ['verb'], buckets: [0.1, 1, 10] })
  for (const v of [0.05, 0.1, 0.5, 2, 20]) h.observe(v, { verb: 'apply' })
  const snap = h.snapshot({ verb: 'apply' })
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
  const out: string[] = []
  h.render(out)
  t.strictSame(out, [
    '# HELP apply_seconds Apply latency.',
    '# TYPE apply_seconds histogram',
    'apply_seconds_bucket{verb="apply",le="0.1"} 2',
    'apply_seconds_bucket{verb="apply",le="1"} 3',
    'apply_seconds_bucket{verb="apply",le="10"} 4',
    'apply_seconds_bucket{verb="apply",le="+Inf"} 5',
    'apply_seconds_sum{verb="apply"} 22.65',
    'apply_seconds_count{verb="apply"} 5',
  ])
  t.strictSame(h.snapshot({ verb: 'delete' }), {
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
  const r = new Registry()
  const c = r.counter({ name: 'odd_total', help: 'back\\slash and\nnewline', labelNames: ['v'] })
  c.inc({ v: 'a "quoted" \\ value\nwith newline' })
  const text = r.render()
  t.match(text, /^# HELP odd_total back\\\\slash and\\nnewline$/m)
  t.ok(text.includes('odd_total{v="a \\"quoted\\" \\\\ value\\nwith newline"} 1'), text)
})

t.test('special values', async (t) => {
  t.equal(formatValue(Infinity), '+Inf')
  t.equal(formatValue(-Infinity), '-Inf')
  t.equal(formatValue(NaN), 'NaN')
  t.equal(formatValue(1e21), '1e+21')
  t.equal(formatValue(-0.25), '-0.25')
})

t.test('the registry returns the same metric for the same name and rejects a clash', async (t) => {
  const r = new Registry()
  const a = r.counter({ name: 'x_total', help: 'h', labelNames: ['q'] })
  const b = r.counter({ name: 'x_total', help: 'h', labelNames: ['q'] })
  t.equal(a, b)
  t.throws(() => r.gauge({ name: 'x_total', help: 'h', labelNames: ['q'] }), /already registered as a counter/)
  t.throws(() => r.counter({ name: 'x_total', help: 'h', labelNames: ['other'] }), /labels/)
  r.histogram({ name: 'h_seconds', help: 'h', buckets: [1, 2] })
  t.throws(() => r.histogram({ name: 'h_seconds', help: 'h', buckets: [1, 3] }), /different buckets/)
  t.equal(r.get('x_total'), a)
  t.equal(r.get('missing'), undefined)
})

t.test('misuse fails with a message naming the metric', async (t) => {
  t.throws(() => new Counter({ name: 'bad-name', help: 'h' }), /bad-name/)
  t.throws(() => new Counter({ name: 'ok', help: 'h', labelNames: ['__reserved'] }), /__reserved/)
  t.throws(() => new Counter({ name: 'ok', help: 'h', labelNames: ['a', 'a'] }), /repeated/)
  t.throws(() => new Histogram({ name: 'h', help: 'h', labelNames: ['le'] }), /le/)
  t.throws(() => new Histogram({ name: 'h', help: 'h', buckets: [2, 1] }), /increase/)
  t.throws(() => new Histogram({ name: 'h', help: 'h', buckets: [1, Infinity] }), /finite/)
  t.throws(() => new Histogram({ name: 'h', help: 'h', buckets: [] }), /at least one/)
  const c = new Counter({ name: 'c_total', help: 'h', labelNames: ['a'] })
  t.throws(() => c.inc({ a: 'x' }, -1), /c_total.*-1/)
  t.throws(() => c.inc({ b: 'x' }), /c_total: labels \{b\} do not match the declared labels \{a\}/)
  t.throws(() => c.inc(), /c_total/)
  t.throws(() => c.inc({ a: 'x', b: 'y' }), /c_total/)
  t.throws(() => new Histogram({ name: 'h', help: 'h' }).observe(NaN), /NaN/)
  t.throws(() => c.inc({ a: 1 as unknown as string }), /c_total: labels \{a\} do not match/, 'a label value that is not a string')
})

t.test('label values that run into each other stay separate series', async (t) => {
  const c = new Counter({ name: 'pairs_total', help: 'h', labelNames: ['a', 'b'] })
  // Joined without lengths, each pair would read "x:1:y" or similar; each must count apart.
  c.inc({ a: 'x:1', b: 'y' })
  c.inc({ a: 'x', b: '1:y' })
  c.inc({ a: 'x', b: '1:y' })
  c.inc({ a: '', b: 'x1:y' })
  c.inc({ b: 'y', a: 'x:1' })
  t.equal(c.get({ a: 'x:1', b: 'y' }), 2, 'label order in the call does not matter')
  t.equal(c.get({ a: 'x', b: '1:y' }), 2)
  t.equal(c.get({ a: '', b: 'x1:y' }), 1)
  const out: string[] = []
  c.render(out)
  t.equal(out.filter((l) => l.startsWith('pairs_total{')).length, 3)
})

t.test('histogram observations land in the first bucket that holds them', async (t) => {
  const h = new Histogram({ name: 'h_seconds', help: 'h', buckets: [0.1, 1, 10] })
  for (const v of [0.05, 0.1, 0.5, 1, 9, 10, 11, 1e9]) h.observe(v)
  const s = h.snapshot()
  t.same(
    s.buckets.map((b) => b.count),
    [2, 4, 6],
    'cumulative: le=0.1 holds 0.05 and 0.1; le=1 adds 0.5 and 1; le=10 adds 9 and 10',
  )
  t.equal(s.count, 8, 'values above the last bound count only in +Inf')
})

t.test('collect hooks run before each render and can be removed', async (t) => {
  const r = new Registry()
  const g = r.gauge({ name: 'age_seconds', help: 'h' })
  let age = 1
  const stop = r.onCollect(() => g.set(age))
  t.match(r.render(), /^age_seconds 1$/m)
  age = 2
  t.match(r.render(), /^age_seconds 2$/m)
  stop()
  age = 3
  t.match(r.render(), /^age_seconds 2$/m, 'no longer refreshed')
})

t.test('remove drops one series or all of them', async (t) => {
  const c = new Counter({ name: 'r_total', help: 'h', labelNames: ['q'] })
  c.inc({ q: 'a' })
  c.inc({ q: 'b' })
  c.remove({ q: 'a' })
  let out: string[] = []
  c.render(out)
  t.strictSame(out.slice(2), ['r_total{q="b"} 1'])
  c.remove()
  out = []
  c.render(out)
  t.strictSame(out.slice(2), [])
  c.inc({ q: 'a' })
  c.inc({ q: 'b' }, 2)
  out = []
  c.render(out)
  t.strictSame(out.slice(2), ['r_total{q="a"} 1', 'r_total{q="b"} 2'], 'series removed then observed again start from zero, once each')

  const two = new Counter({ name: 't_total', help: 'h', labelNames: ['x', 'y'] })
  two.inc({ x: 'a', y: '1' })
  two.inc({ x: 'a', y: '2' })
  two.remove({ x: 'a', y: '1' })
  two.inc({ x: 'a', y: '1' })
  t.equal(two.get({ x: 'a', y: '1' }), 1)
  t.equal(two.get({ x: 'a', y: '2' }), 1, 'a sibling series is untouched')
})

t.test('an empty registry renders nothing; the content type names format 0.0.4', async (t) => {
  t.equal(new Registry().render(), '')
  t.match(PROMETHEUS_CONTENT_TYPE, /^text\/plain; version=0\.0\.4/)
})
