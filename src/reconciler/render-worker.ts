// Worker thread of the render pool (render-pool.ts): runs renderChart and Go
// template jobs on inputs the reconciler posts, so that a user's template
// never holds the reconciler's event loop. One job at a time.

import { parentPort } from 'node:worker_threads'
import type { Chart, ChartFile, Subchart } from '../helm/chart/types.ts'
import { HelmRenderError, type HelmRenderInput, renderChart, DEFAULT_RENDER_LIMITS } from '../helm/render/index.ts'
import { ParseCache, runTemplateJob } from '../render/template-job.ts'
import { chartTimedOut } from '../render/time-limit.ts'
import { type ChartOutcome, type RenderReply, type RenderRequest, touchLru, type WorkerReady } from './render-pool.ts'
import { lowerThreadPriority } from './thread-priority.ts'

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

function run(input: HelmRenderInput): ChartOutcome {
  const started = performance.now()
  try {
    return { ok: true, result: renderChart(input) }
  } catch (err) {
    if (err instanceof HelmRenderError) {
      const timedOut = chartTimedOut(err, performance.now() - started, input.limits?.timeMs ?? DEFAULT_RENDER_LIMITS.timeMs)
      return {
        ok: false,
        error: {
          helm: true,
          code: err.code,
          message: err.message,
          ...(err.template === undefined ? {} : { template: err.template }),
          ...(err.line === undefined ? {} : { line: err.line }),
          ...(timedOut ? { timedOut } : {}),
        },
      }
    }
    return { ok: false, error: { helm: false, message: err instanceof Error ? (err.stack ?? err.message) : String(err) } }
  }
}

// Charts by the pool's chartId: a chart is cloned over once, and its parse and schema caches stay warm.
const charts = new Map<number, Chart>()
// Go templates by name and text: a Template's body is parsed once per worker.
const parsed = new ParseCache()

function answer(req: RenderRequest): RenderReply['outcome'] {
  if (req.kind === 'template') return runTemplateJob(req.job, parsed)
  const chart = req.chart === undefined ? charts.get(req.chartId) : reviveChart(req.chart)
  if (chart === undefined) return { ok: false, error: { helm: false, message: `chart ${req.chartId} was not sent to this worker` } }
  touchLru(charts, req.chartId, chart)
  return run({ ...req.input, chart })
}

const port = parentPort
if (port === null) throw new Error('render-worker.ts runs as a worker thread of render-pool.ts')
// A slow render yields the CPU to the reconciler's own thread.
lowerThreadPriority()
port.on('message', (req: RenderRequest) => {
  port.postMessage({ id: req.id, outcome: answer(req) } satisfies RenderReply)
})
port.postMessage({ ready: true } satisfies WorkerReady)
