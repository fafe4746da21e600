// The chart render pool (src/reconciler/helm-render-pool.ts): renders in
// worker threads, errors that cross the thread as HelmRenderError, and a
// worker that never answers or runs out of memory stopped without the
// pool or this thread being affected.

import t from 'tap'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { defaultCapabilities, HelmRenderError, type HelmRenderInput, loadChartFiles, renderChart } from '../../src/helm/index.ts'
import { createRenderPool, WORKER_CHART_CACHE } from '../../src/reconciler/helm-render-pool.ts'

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

t.test('a worker that never answers is terminated after the time limit and grace; the next render gets a new worker', async (t) => {
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
  t.ok(err instanceof HelmRenderError, String(err))
  t.equal((err as HelmRenderError).code, 'Limit')
  t.equal((err as HelmRenderError).message, 'the chart did not render within 0.4 s (its templates may loop); the render was stopped')
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
  await t.rejects(stuck.render(input()), /the chart render worker did not start within 0\.5 s/)
})

t.test('after close, renders are refused', async (t) => {
  const pool = createRenderPool()
  await pool.close()
  await t.rejects(pool.render(input()), /closed/)
})
