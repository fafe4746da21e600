// Every user template the reconciler runs (a chart, a spec.gotemplate body, a
// valuesTemplate) runs here, off the reconciler's thread: that thread renews
// the leader Lease and serves the drift watches, and a template that loops
// for seconds must stall neither (docs/render-time-limit.md).
//
// A small pool of worker threads, each with a heap cap. Each job has a time
// limit: the engine stops itself at it (RenderTimeout); one that does not (a
// single function call that runs on) has its worker terminated after a grace
// period, and a new worker starts for the next job. A job that has run for
// `slowMs` no longer counts against `size`, so a slow template holds up only
// itself: the next job gets another worker (at most `maxWorkers` in all),
// and a worker beyond `size` stops once it is idle. Workers start on the
// first job and stop after `idleMs` without one, so a reconciler at rest
// holds no render threads; an idle worker never keeps the process alive.

import { Worker } from 'node:worker_threads'
import type { Chart } from '../helm/chart/types.ts'
import {
  DEFAULT_RENDER_LIMITS,
  type HelmRenderCode,
  HelmRenderError,
  type HelmRenderInput,
  type HelmRenderResult,
} from '../helm/render/index.ts'
import { executionFailed } from '../render/render.ts'
import type { OutcomeOf, TemplateJob, TemplateJobOutcome, TemplateRunner } from '../render/template-job.ts'
import { ChartRenderTimeout, chartTimedOut, formatLimit } from '../render/time-limit.ts'

export interface ChartRenderer {
  /** Rejects with HelmRenderError for a chart that does not render, ChartRenderTimeout at the time limit. */
  render(input: HelmRenderInput): Promise<HelmRenderResult>
  close(): Promise<void>
}

export interface RenderPool extends ChartRenderer {
  /** A Go template job; its failures, a time-out included, are outcomes. */
  readonly runTemplate: TemplateRunner
  /** Worker threads running now, idle ones included. */
  workers(): number
}

/**
 * What the pool posts to a worker. A chart is sent (structured-cloned) only
 * the first time that worker renders it; later requests name it by chartId.
 */
export type RenderRequest =
  | {
      readonly id: number
      readonly kind: 'chart'
      readonly chartId: number
      readonly chart?: Chart
      readonly input: Omit<HelmRenderInput, 'chart'>
    }
  | { readonly id: number; readonly kind: 'template'; readonly job: TemplateJob }

/** Charts each worker keeps, least recently used dropped first; the pool mirrors the worker's list exactly. */
export const WORKER_CHART_CACHE = 16

/** Moves `key` to the most recent end of an insertion-ordered map, inserting it if new, and trims to the bound. */
export function touchLru<V>(lru: Map<number, V>, key: number, value: V): void {
  lru.delete(key)
  lru.set(key, value)
  while (lru.size > WORKER_CHART_CACHE) {
    const oldest = lru.keys().next().value as number
    lru.delete(oldest)
  }
}

export type WorkerError =
  | {
      readonly helm: true
      readonly code: HelmRenderCode
      readonly message: string
      readonly template?: string
      readonly line?: number
      /** The render ran its whole time limit (chartTimedOut). */
      readonly timedOut?: boolean
    }
  | { readonly helm: false; readonly message: string }

export type ChartOutcome = { readonly ok: true; readonly result: HelmRenderResult } | { readonly ok: false; readonly error: WorkerError }

/** What a worker posts once its modules are loaded, before any reply. */
export interface WorkerReady {
  readonly ready: true
}

/** What a worker answers: a ChartOutcome to a chart, a TemplateJobOutcome to a template job. */
export interface RenderReply {
  readonly id: number
  readonly outcome: ChartOutcome | TemplateJobOutcome
}

export interface RenderPoolOptions {
  /** Renders at a time while none is slow. Default 2. */
  readonly size?: number
  /** After this long a render is slow and no longer counts against `size`. Default 250 ms. */
  readonly slowMs?: number
  /** Workers in all, slow renders included. Default size + 8. */
  readonly maxWorkers?: number
  /** How long past a job's time limit the engine may take to stop by itself before its worker is terminated. Default 2 s. */
  readonly graceMs?: number
  /** Old-generation heap of each worker. Default 512 MiB. */
  readonly maxHeapMb?: number
  /** The worker module; tests substitute one. It posts WorkerReady once loaded. */
  readonly workerUrl?: URL
  /** How long a new worker may take to load. Default 60 s. */
  readonly startupMs?: number
  /**
   * A worker with no job for this long stops. Default 30 s: a reconciler at
   * rest renders nothing (renders are memoized), and each loaded worker holds
   * about 30 MiB (docs/reconciler-memory.md).
   */
  readonly idleMs?: number
}

// Sources run as .ts in a checkout and as compiled .js from dist/.
const DEFAULT_WORKER = new URL(import.meta.url.endsWith('.ts') ? './render-worker.ts' : './render-worker.js', import.meta.url)

/** Why the pool stopped a job's worker. */
type Stop =
  | { readonly kind: 'timeout'; readonly limitMs: number }
  | { readonly kind: 'memory'; readonly heapMb: number }
  | { readonly kind: 'failed'; readonly error: Error }

interface Slot {
  readonly worker: Worker
  job: Job | undefined
  timer: NodeJS.Timeout | undefined
  slowTimer: NodeJS.Timeout | undefined
  /** Its job has run for slowMs. */
  slow: boolean
  /** chartIds the worker holds, in its LRU order. */
  readonly charts: Map<number, true>
  /** The worker has loaded; until then a job waits (loading does not count against its time limit). */
  ready: boolean
  /** Stops the worker once it has been idle for idleMs. */
  idleTimer: NodeJS.Timeout | undefined
}

interface Job {
  readonly id: number
  readonly timeMs: number
  request(slot: Slot): RenderRequest
  answer(outcome: RenderReply['outcome']): void
  stop(why: Stop): void
}

const STOPPED_DETAIL = 'it did not stop by itself, so the worker thread running it was terminated'

function fromWorker(e: WorkerError, limitMs: number): Error {
  if (!e.helm) return new Error(`chart render failed unexpectedly: ${e.message}`)
  if (e.timedOut === true) return new ChartRenderTimeout(limitMs, e.message)
  return new HelmRenderError(e.code, e.message, {
    ...(e.template === undefined ? {} : { template: e.template }),
    ...(e.line === undefined ? {} : { line: e.line }),
  })
}

function chartJob(
  id: number,
  input: HelmRenderInput,
  chartId: number,
  settle: { resolve(r: HelmRenderResult): void; reject(e: Error): void },
): Job {
  const timeMs = input.limits?.timeMs ?? DEFAULT_RENDER_LIMITS.timeMs
  return {
    id,
    timeMs,
    request(slot) {
      const { chart, ...rest } = input
      const known = slot.charts.has(chartId)
      touchLru(slot.charts, chartId, true)
      return { id, kind: 'chart', chartId, input: rest, ...(known ? {} : { chart }) }
    },
    answer(outcome) {
      const o = outcome as ChartOutcome
      if (o.ok) settle.resolve(o.result)
      else settle.reject(fromWorker(o.error, timeMs))
    },
    stop(why) {
      if (why.kind === 'timeout') settle.reject(new ChartRenderTimeout(why.limitMs, STOPPED_DETAIL))
      else if (why.kind === 'memory') {
        settle.reject(new HelmRenderError('Limit', `the chart render ran out of memory (${why.heapMb} MiB) and was stopped`))
      } else settle.reject(why.error)
    },
  }
}

function templateJob(id: number, job: TemplateJob, settle: { resolve(r: TemplateJobOutcome): void; reject(e: Error): void }): Job {
  return {
    id,
    timeMs: job.timeMs,
    request: () => ({ id, kind: 'template', job }),
    answer: (outcome) => settle.resolve(outcome as TemplateJobOutcome),
    stop(why) {
      if (why.kind === 'timeout') settle.resolve({ ok: false, reason: 'RenderTimeout', message: STOPPED_DETAIL })
      else if (why.kind === 'memory') settle.resolve(executionFailed(`the render ran out of memory (${why.heapMb} MiB) and was stopped`))
      else settle.reject(why.error)
    },
  }
}

export function createRenderPool(opts: RenderPoolOptions = {}): RenderPool {
  const size = Math.max(1, opts.size ?? 2)
  const slowMs = opts.slowMs ?? 250
  const maxWorkers = Math.max(size, opts.maxWorkers ?? size + 8)
  const graceMs = opts.graceMs ?? 2000
  const maxHeapMb = opts.maxHeapMb ?? 512
  const workerUrl = opts.workerUrl ?? DEFAULT_WORKER
  const startupMs = opts.startupMs ?? 60_000
  const idleMs = opts.idleMs ?? 30_000
  const slots: Slot[] = []
  const queue: Job[] = []
  let nextId = 1
  // Loaded charts are frozen and shared (the fetcher's cache): the object is the chart's identity.
  const chartIds = new WeakMap<Chart, number>()
  let nextChartId = 1
  const idOf = (c: Chart): number => {
    let id = chartIds.get(c)
    if (id === undefined) {
      id = nextChartId++
      chartIds.set(c, id)
    }
    return id
  }
  let closed = false

  const settle = (slot: Slot): Job | undefined => {
    const job = slot.job
    slot.job = undefined
    clearTimeout(slot.timer)
    clearTimeout(slot.slowTimer)
    slot.timer = undefined
    slot.slowTimer = undefined
    slot.slow = false
    // An idle worker never keeps the process alive; a busy one does, like any pending I/O.
    slot.worker.unref()
    return job
  }

  const remove = (slot: Slot): boolean => {
    const at = slots.indexOf(slot)
    if (at >= 0) slots.splice(at, 1)
    return at >= 0
  }

  const drop = (slot: Slot, why: Stop): void => {
    if (!remove(slot) && slot.job === undefined) return
    settle(slot)?.stop(why)
    void slot.worker.terminate()
    pump()
  }

  const spawn = (): Slot => {
    const worker = new Worker(workerUrl, { resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } })
    worker.unref()
    const slot: Slot = {
      worker,
      job: undefined,
      timer: undefined,
      slowTimer: undefined,
      slow: false,
      charts: new Map(),
      ready: false,
      idleTimer: undefined,
    }
    worker.on('message', (reply: RenderReply | WorkerReady) => {
      if ('ready' in reply) {
        slot.ready = true
        if (slot.job !== undefined) send(slot, slot.job)
        return
      }
      if (slot.job?.id !== reply.id) return
      settle(slot)?.answer(reply.outcome)
      // A worker started for slow renders goes once there is nothing for it.
      if (queue.length === 0 && slots.length > size && remove(slot)) void worker.terminate()
      else {
        pump()
        if (slot.job === undefined) rest(slot)
      }
    })
    worker.on('error', (err: Error & { code?: string }) => {
      drop(
        slot,
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? { kind: 'memory', heapMb: maxHeapMb }
          : { kind: 'failed', error: new Error(`the render worker failed: ${err.message}`, { cause: err }) },
      )
    })
    worker.on('exit', () => drop(slot, { kind: 'failed', error: new Error('the render worker exited') }))
    slots.push(slot)
    return slot
  }

  const arm = (slot: Slot, ms: number, why: () => Stop): void => {
    clearTimeout(slot.timer)
    slot.timer = setTimeout(() => drop(slot, why()), ms)
    slot.timer.unref()
  }

  const send = (slot: Slot, job: Job): void => {
    arm(slot, job.timeMs + graceMs, () => ({ kind: 'timeout', limitMs: job.timeMs }))
    slot.slowTimer = setTimeout(() => {
      slot.slow = true
      pump()
    }, slowMs)
    slot.slowTimer.unref()
    slot.worker.postMessage(job.request(slot))
  }

  const rest = (slot: Slot): void => {
    clearTimeout(slot.idleTimer)
    slot.idleTimer = setTimeout(() => {
      if (slot.job === undefined && remove(slot)) void slot.worker.terminate()
    }, idleMs)
    slot.idleTimer.unref()
  }

  const start = (slot: Slot, job: Job): void => {
    clearTimeout(slot.idleTimer)
    slot.job = job
    slot.worker.ref()
    if (slot.ready) send(slot, job)
    else {
      arm(slot, startupMs, () => ({
        kind: 'failed',
        error: new Error(`the render worker did not start within ${formatLimit(startupMs)}`),
      }))
    }
  }

  const canSpawn = (): boolean => slots.length < maxWorkers && slots.filter((s) => !s.slow).length < size

  function pump(): void {
    while (!closed && queue.length > 0) {
      const slot = slots.find((s) => s.job === undefined) ?? (canSpawn() ? spawn() : undefined)
      if (slot === undefined) return
      start(slot, queue.shift() as Job)
    }
  }

  const enqueue = (job: Job): void => {
    queue.push(job)
    pump()
  }
  const closedError = (): Error => new Error('the render pool is closed')

  return {
    render(input) {
      if (closed) return Promise.reject(closedError())
      return new Promise<HelmRenderResult>((resolve, reject) => enqueue(chartJob(nextId++, input, idOf(input.chart), { resolve, reject })))
    },
    runTemplate<J extends TemplateJob>(job: J): Promise<OutcomeOf<J>> {
      if (closed) return Promise.reject(closedError())
      return new Promise<OutcomeOf<J>>((resolve, reject) =>
        enqueue(templateJob(nextId++, job, { resolve: (o) => resolve(o as OutcomeOf<J>), reject })),
      )
    },
    workers: () => slots.length,
    async close() {
      closed = true
      for (const job of queue.splice(0)) job.stop({ kind: 'failed', error: closedError() })
      await Promise.all(
        slots.splice(0).map((s) => {
          clearTimeout(s.idleTimer)
          settle(s)?.stop({ kind: 'failed', error: closedError() })
          return s.worker.terminate()
        }),
      )
    },
  }
}

/**
 * Renders charts on the calling thread: for one-shot commands, where nothing
 * else waits. A chart that ran its whole time limit is a ChartRenderTimeout,
 * as from the pool.
 */
export function inlineRenderer(render: (input: HelmRenderInput) => HelmRenderResult): ChartRenderer {
  return {
    render: async (input) => {
      const limitMs = input.limits?.timeMs ?? DEFAULT_RENDER_LIMITS.timeMs
      const started = performance.now()
      try {
        return render(input)
      } catch (err) {
        if (chartTimedOut(err, performance.now() - started, limitMs))
          throw new ChartRenderTimeout(limitMs, (err as Error).message, { cause: err })
        throw err
      }
    },
    close: async () => {},
  }
}
