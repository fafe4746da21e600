// The render pool (src/reconciler/render-pool.ts): charts and Go templates
// render in worker threads, errors cross the thread as HelmRenderError or as
// outcomes, a render stops at its time limit (by itself, or its worker is
// terminated), a slow render holds up only itself, and a worker that runs
// out of memory is stopped without the pool or this thread being affected.

import t from 'tap'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { defaultCapabilities, HelmRenderError, type HelmRenderInput, loadChartFiles, renderChart } from '../../src/helm/index.ts'
import { createRenderPool, WORKER_CHART_CACHE } from '../../src/reconciler/render-pool.ts'
import { ParseCache, runTemplateJob, type TemplateJob } from '../../src/render/template-job.ts'
import { ChartRenderTimeout } from '../../src/render/time-limit.ts'

const chart = await loadChartFiles(
  [
    { name: 'Chart.yaml', data: Buffer.from('apiVersion: v2\nname: demo\nversion: 0.1.0\n') },
    { name: 'values.yaml', data: Buffer.from('color: blue\n') },
    { name: 'values.schema.json', data: Buffer.from('{"properties":{"color":{"type":"string"}}}') },
    { name: 'templates/_helpers.tpl', data: Buffer.from('{{ define "demo.name" }}{{ .Release.Name }}-x{{ end }}') },
    {
      name: 'templates/cm.yaml',
      data: Buffer.from(
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include "demo.name" . }}\ndata:\n  color: {{ .Values.color }}\n  file: {{ .Files.Get "files/a.txt" | quote }}\n',
      ),
    },
    { name: 'files/a.txt', data: Buffer.from('from a file') },
  ],
  { helm: 'v3' },
)

const input = (extra: Partial<HelmRenderInput> = {}): HelmRenderInput => ({
  chart,
  helm: 'v3',
  releaseName: 'rel',
  namespace: 'ns',
  values: {},
  capabilities: defaultCapabilities(),
  ...extra,
})

const dir = mkdtempSync(join(tmpdir(), 'ts-helm-pool-'))
/** A stand-in worker module; it says it is ready once loaded, as the real one does. */
function workerFile(name: string, body: string): URL {
  const p = join(dir, name)
  writeFileSync(p, `${body}parentPort.postMessage({ ready: true })\n`)
  return pathToFileURL(p)
}

t.test('a render in the pool equals the same render on this thread, files and schema included', async (t) => {
  const pool = createRenderPool({ size: 2 })
  t.teardown(() => pool.close())
  const values = { color: 'green' }
  const [a, b] = await Promise.all([pool.render(input({ values })), pool.render(input({ releaseName: 'other' }))])
  t.strictSame(a, renderChart(input({ values })))
  t.strictSame(b, renderChart(input({ releaseName: 'other' })))
  t.match(a.objects[0]?.object, { metadata: { name: 'rel-x' }, data: { color: 'green', file: 'from a file' } })
})

t.test('an engine error reaches the caller as a HelmRenderError with its code, template and line', async (t) => {
  const pool = createRenderPool({ size: 1 })
  t.teardown(() => pool.close())
  const err = await pool.render(input({ values: { color: 7 } })).catch((e: unknown) => e)
  t.ok(err instanceof HelmRenderError)
  t.equal((err as HelmRenderError).code, 'SchemaViolation')
  t.match((err as HelmRenderError).message, /values don't meet the specifications of the schema/)
  const bad = await pool.render(input({ releaseName: 'Not_A_Name' })).catch((e: unknown) => e)
  t.equal((bad as HelmRenderError).code, 'ReleaseName')
  t.match(await pool.render(input()), { objects: [{ template: 'demo/templates/cm.yaml' }] }, 'the worker keeps serving after an error')
})

t.test('a chart worker that never answers is terminated after the time limit and grace; the next render gets a new worker', async (t) => {
  const hang = workerFile(
    'hang.mjs',
    "import { parentPort } from 'node:worker_threads'\nparentPort.on('message', (m) => { if (m.input.releaseName === 'hang') for (;;) {} ; parentPort.postMessage({ id: m.id, outcome: { ok: true, result: { objects: [], skipped: [] } } }) })\n",
  )
  const pool = createRenderPool({ size: 1, graceMs: 100, workerUrl: hang })
  t.teardown(() => pool.close())
  const started = Date.now()
  let ticks = 0
  const timer = setInterval(() => ticks++, 50)
  const err = await pool.render(input({ releaseName: 'hang', limits: { timeMs: 400 } })).catch((e: unknown) => e)
  clearInterval(timer)
  const took = Date.now() - started
  t.ok(err instanceof ChartRenderTimeout, String(err))
  t.equal((err as ChartRenderTimeout).limitMs, 400)
  t.equal((err as ChartRenderTimeout).message, 'it did not stop by itself, so the worker thread running it was terminated')
  t.ok(took >= 500, `stopped after the limit and the grace (${took} ms)`)
  t.ok(ticks >= 5, `this thread kept running meanwhile (${ticks} timer ticks)`)
  t.strictSame(await pool.render(input()), { objects: [], skipped: [] }, 'a fresh worker answers the next render')
})

t.test('renders wait for a free worker instead of failing', async (t) => {
  const slow = workerFile(
    'slow.mjs',
    "import { parentPort } from 'node:worker_threads'\nparentPort.on('message', (m) => setTimeout(() => parentPort.postMessage({ id: m.id, outcome: { ok: true, result: { objects: [], skipped: [{ template: m.input.releaseName, reason: 'echo' }] } } }), 100))\n",
  )
  const pool = createRenderPool({ size: 2, workerUrl: slow })
  t.teardown(() => pool.close())
  const names = ['a', 'b', 'c', 'd', 'e']
  const results = await Promise.all(names.map((n) => pool.render(input({ releaseName: n }))))
  t.strictSame(
    results.map((r) => r.skipped[0]?.template),
    names,
  )
})

t.test('a worker that runs out of memory is a Limit error, and the pool goes on', async (t) => {
  const hog = workerFile(
    'hog.mjs',
    "import { parentPort } from 'node:worker_threads'\nparentPort.on('message', (m) => { if (m.input.releaseName === 'hog') { const a = []; for (;;) a.push(new Array(1e5).fill(a.length)) } parentPort.postMessage({ id: m.id, outcome: { ok: true, result: { objects: [], skipped: [] } } }) })\n",
  )
  // Under tap a worker inherits its loaders and starts with ~28 MiB in use: a cap near that lets a fresh
  // worker run out of memory while it loads, so the cap leaves room for the start and only the hog hits it.
  const pool = createRenderPool({ size: 1, maxHeapMb: 96, workerUrl: hog })
  t.teardown(() => pool.close())
  const err = await pool.render(input({ releaseName: 'hog' })).catch((e: unknown) => e)
  t.equal((err as HelmRenderError).code, 'Limit')
  t.equal((err as HelmRenderError).message, 'the chart render ran out of memory (96 MiB) and was stopped')
  t.strictSame(await pool.render(input()), { objects: [], skipped: [] })
})

t.test('a chart crosses to a worker once; the worker keeps the last 16, as the pool expects', async (t) => {
  const echo = workerFile(
    'echo.mjs',
    "import { parentPort } from 'node:worker_threads'\nparentPort.on('message', (m) => parentPort.postMessage({ id: m.id, outcome: { ok: true, result: { objects: [], skipped: [{ template: m.chart === undefined ? 'by id' : 'sent', reason: String(m.chartId) }] } } }))\n",
  )
  const pool = createRenderPool({ size: 1, workerUrl: echo })
  t.teardown(() => pool.close())
  const how = async (c: typeof chart) => (await pool.render(input({ chart: c }))).skipped[0]?.template
  t.equal(await how(chart), 'sent')
  t.equal(await how(chart), 'by id', 'the same chart object is not cloned again')
  const others = await Promise.all(
    Array.from({ length: WORKER_CHART_CACHE }, () =>
      loadChartFiles([{ name: 'Chart.yaml', data: Buffer.from('apiVersion: v2\nname: x\nversion: 1.0.0\n') }], { helm: 'v3' }),
    ),
  )
  for (const o of others) t.equal(await how(o), 'sent')
  t.equal(await how(chart), 'sent', 'evicted after 16 other charts: sent again')
  t.equal(await how(others.at(-1) ?? chart), 'by id')
})

t.test('the real worker renders a chart it holds by id the same as one sent to it', async (t) => {
  const pool = createRenderPool({ size: 1 })
  t.teardown(() => pool.close())
  const first = await pool.render(input({ values: { color: 'red' } }))
  const second = await pool.render(input({ values: { color: 'red' } }))
  t.strictSame(second, first)
  t.match(second.objects[0]?.object, { data: { color: 'red', file: 'from a file' } })
})

t.test('loading a worker does not count against the render time limit; a worker that never loads fails the render', async (t) => {
  const slowStart = workerFile(
    'slow-start.mjs',
    "import { parentPort } from 'node:worker_threads'\nawait new Promise((r) => setTimeout(r, 1500))\nparentPort.on('message', (m) => parentPort.postMessage({ id: m.id, outcome: { ok: true, result: { objects: [], skipped: [] } } }))\n",
  )
  const pool = createRenderPool({ size: 1, graceMs: 100, workerUrl: slowStart })
  t.teardown(() => pool.close())
  t.strictSame(
    await pool.render(input({ limits: { timeMs: 300 } })),
    { objects: [], skipped: [] },
    'a 1.5 s load, then a render within 0.3 s',
  )
  const never = join(dir, 'never.mjs')
  writeFileSync(never, 'await new Promise(() => setInterval(() => {}, 1000))\n')
  const stuck = createRenderPool({ size: 1, startupMs: 500, workerUrl: pathToFileURL(never) })
  t.teardown(() => stuck.close())
  await t.rejects(stuck.render(input()), /the render worker did not start within 0\.5 s/)
})

t.test('after close, renders are refused', async (t) => {
  const pool = createRenderPool()
  await pool.close()
  await t.rejects(pool.render(input()), /closed/)
})

const instanceOf = { metadata: { name: 'app1', namespace: 'team-a', labels: { tier: 'web' } } }
const cm =
  'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .instance.name }}\ndata:\n  tier: {{ .instance.labels.tier }}\n  v: {{ .parameters.v | quote }}\n  p: {{ index .parameters "__proto__" | quote }}\n'
/** The Template: within every size limit, but 400000 hashes of 40 KB. */
const SLOW = '{{ range $i := until 400000 }}{{ $s := repeat 20000 "ab" | sha256sum }}{{ end }}'

t.test('Go template jobs answer in a worker as on this thread', async (t) => {
  const pool = createRenderPool({ size: 1 })
  t.teardown(() => pool.close())
  const jobs: TemplateJob[] = [
    {
      kind: 'manifests',
      name: 'web',
      text: cm,
      instance: instanceOf,
      values: { v: 'x', ['__proto__']: 'a key like any other' },
      timeMs: 10_000,
    },
    { kind: 'manifests', name: 'web', text: '{{ .parameters.missing }}', instance: instanceOf, values: {}, timeMs: 10_000 },
    { kind: 'manifests', name: 'web', text: 'a: [', instance: instanceOf, values: {}, timeMs: 10_000 },
    {
      kind: 'values',
      text: 'replicas: {{ .parameters.n }}\nname: {{ .instance.name }}',
      instance: instanceOf,
      values: { n: '3' },
      timeMs: 10_000,
    },
    { kind: 'parse', name: 'web', text: '{{ if }}', timeMs: 10_000 },
    { kind: 'parse', name: 'web', text: cm, timeMs: 10_000 },
  ]
  for (const job of jobs) t.strictSame(await pool.runTemplate(job), runTemplateJob(job, new ParseCache()), `${job.kind}: ${job.text}`)
  t.match(await pool.runTemplate(jobs[0] as TemplateJob), {
    ok: true,
    documents: [{ value: { metadata: { name: 'app1' }, data: { tier: 'web', v: 'x', p: 'a key like any other' } } }],
  })
})

t.test('a slow Go template stops at its time limit in the worker, while this thread keeps running', async (t) => {
  // A grace far beyond the test: an answer proves the engine stopped by itself, not the pool.
  const pool = createRenderPool({ size: 1, graceMs: 600_000 })
  t.teardown(() => pool.close())
  let ticks = 0
  const timer = setInterval(() => ticks++, 50)
  const started = Date.now()
  const out = await pool.runTemplate({ kind: 'manifests', name: 'slow', text: SLOW, instance: instanceOf, values: {}, timeMs: 500 })
  const took = Date.now() - started
  clearInterval(timer)
  t.strictSame(out, {
    ok: false,
    reason: 'RenderTimeout',
    message: 'template: slow:1:59: executing "slow" at <sha256sum>: execution exceeded its time limit',
  })
  t.ok(took >= 500, `not before the limit (${took} ms)`)
  t.ok(ticks >= 5, `this thread kept running meanwhile (${ticks} timer ticks)`)
  t.match(await pool.runTemplate({ kind: 'parse', name: 'web', text: cm, timeMs: 500 }), { ok: true }, 'the worker serves the next job')
})

const templateWorker = workerFile(
  'template.mjs',
  [
    "import { parentPort } from 'node:worker_threads'",
    "parentPort.on('message', (m) => {",
    '  const reply = () => parentPort.postMessage({ id: m.id, outcome: { ok: true, documents: [{ document: 1, line: 1, value: m.job.name }] } })',
    "  if (m.job.name === 'hang') for (;;) {}",
    // Longer than a new worker takes to load on a loaded machine, so that only the pool's choice decides the order.
    "  if (m.job.name === 'slow') setTimeout(reply, 5000)",
    '  else reply()',
    '})',
    '',
  ].join('\n'),
)
const named = (name: string): TemplateJob => ({ kind: 'manifests', name, text: '', instance: instanceOf, values: {}, timeMs: 5000 })

t.test('a Go template whose worker does not stop by itself is a RenderTimeout, and the next job gets a new worker', async (t) => {
  const pool = createRenderPool({ size: 1, graceMs: 100, workerUrl: templateWorker })
  t.teardown(() => pool.close())
  const started = Date.now()
  t.strictSame(await pool.runTemplate({ ...named('hang'), timeMs: 300 }), {
    ok: false,
    reason: 'RenderTimeout',
    message: 'it did not stop by itself, so the worker thread running it was terminated',
  })
  t.ok(Date.now() - started >= 400, 'after the limit and the grace')
  t.match(await pool.runTemplate(named('next')), { ok: true, documents: [{ value: 'next' }] })
})

t.test('a slow render holds up only itself: the next one gets another worker, up to maxWorkers', async (t) => {
  const order = async (maxWorkers: number): Promise<string[]> => {
    const pool = createRenderPool({ size: 1, slowMs: 100, maxWorkers, workerUrl: templateWorker })
    t.teardown(() => pool.close())
    const done: string[] = []
    const run = (name: string) => pool.runTemplate(named(name)).then(() => done.push(name))
    // A worker is loaded first: loading is not rendering. The second one starts when the slow render turns slow.
    await Promise.all([run('warm-1'), run('warm-2')])
    done.length = 0
    const slow = run('slow')
    await new Promise((r) => setTimeout(r, 20))
    await Promise.all([slow, run('fast')])
    return done
  }
  t.strictSame(await order(2), ['fast', 'slow'], 'a second worker takes the next render')
  t.strictSame(await order(1), ['slow', 'fast'], 'at maxWorkers, the next render waits')
})

t.test('a worker idle for idleMs stops; the next job starts one again', async (t) => {
  const pool = createRenderPool({ size: 1, idleMs: 300, workerUrl: templateWorker })
  t.teardown(() => pool.close())
  t.equal(pool.workers(), 0, 'no worker before the first job')
  await pool.runTemplate(named('a'))
  const answered = Date.now()
  t.equal(pool.workers(), 1, 'the worker stays after its job')
  while (pool.workers() > 0 && Date.now() - answered < 5_000) await new Promise((r) => setTimeout(r, 20))
  const idle = Date.now() - answered
  t.equal(pool.workers(), 0, `it stopped once idle (${idle} ms)`)
  t.ok(idle >= 290, 'not before idleMs')
  t.match(await pool.runTemplate(named('b')), { ok: true, documents: [{ value: 'b' }] }, 'a job after that gets a new worker')
  t.equal(pool.workers(), 1)
})
