// Worker thread of the chart render pool (helm-render-pool.ts): runs
// renderChart on inputs the reconciler posts, so that a chart's templates
// never hold the reconciler's event loop. One render at a time.

import { parentPort } from 'node:worker_threads'
import type { Chart, ChartFile, Subchart } from '../helm/chart/types.ts'
import { HelmRenderError, type HelmRenderInput, renderChart } from '../helm/render/index.ts'
import { type RenderReply, type RenderRequest, touchLru, type WorkerReady } from './helm-render-pool.ts'

// Structured cloning turns each Buffer into a plain Uint8Array; the engine reads files as Buffers.
const buf = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength)
const files = (list: readonly ChartFile[]): ChartFile[] => list.map((f) => ({ name: f.name, data: buf(f.data) }))

function reviveChart(c: Chart): Chart {
  return {
    ...c,
    schema: c.schema === undefined ? undefined : buf(c.schema),
    templates: files(c.templates),
    crds: files(c.crds),
    files: files(c.files),
    subcharts: c.subcharts.map((s): Subchart => ({ entry: s.entry, chart: reviveChart(s.chart) })),
  }
}

function run(input: HelmRenderInput): RenderReply['outcome'] {
  try {
    return { ok: true, result: renderChart(input) }
  } catch (err) {
    if (err instanceof HelmRenderError) {
      return {
        ok: false,
        error: {
          helm: true,
          code: err.code,
          message: err.message,
          ...(err.template === undefined ? {} : { template: err.template }),
          ...(err.line === undefined ? {} : { line: err.line }),
        },
      }
    }
    return { ok: false, error: { helm: false, message: err instanceof Error ? (err.stack ?? err.message) : String(err) } }
  }
}

// Charts by the pool's chartId: a chart is cloned over once, and its parse and schema caches stay warm.
const charts = new Map<number, Chart>()

const port = parentPort
if (port === null) throw new Error('helm-render-worker.ts runs as a worker thread of helm-render-pool.ts')
port.on('message', (req: RenderRequest) => {
  const chart = req.chart === undefined ? charts.get(req.chartId) : reviveChart(req.chart)
  if (chart === undefined) {
    const error = { helm: false as const, message: `chart ${req.chartId} was not sent to this worker` }
    port.postMessage({ id: req.id, outcome: { ok: false, error } } satisfies RenderReply)
    return
  }
  touchLru(charts, req.chartId, chart)
  port.postMessage({ id: req.id, outcome: run({ ...req.input, chart }) } satisfies RenderReply)
})
port.postMessage({ ready: true } satisfies WorkerReady)
