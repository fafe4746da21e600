// Chart renders off the reconciler's thread. renderChart is synchronous and
// bounded by its own limits (time, output, loops), but a chart is untrusted:
// a render that runs for seconds on the main thread would stall every other
// instance, the drift watches and the leader lease. So renders run in a
// small pool of worker threads, each with a heap cap, and a render that
// outlives its time limit (plus a grace period for the engine to stop by
// itself) has its worker terminated. Workers start on the first render; an
// idle worker never keeps the process alive. See docs/helm-templates.md.

import { Worker } from 'node:worker_threads'
import type { Chart } from '../helm/chart/types.ts'
import {
  DEFAULT_RENDER_LIMITS,
  type HelmRenderCode,
  HelmRenderError,
  type HelmRenderInput,
  type HelmRenderResult,
} from '../helm/render/index.ts'

export interface ChartRenderer {
  /** Rejects with HelmRenderError for a chart that does not render (limits included). */
  render(input: HelmRenderInput): Promise<HelmRenderResult>
  close(): Promise<void>
}

/**
 * What the pool posts to a worker. A chart is sent (structured-cloned) only
 * the first time that worker renders it; later requests name it by chartId.
 */
export interface RenderRequest {
  readonly id: number
  readonly chartId: number
  readonly chart?: Chart
  readonly input: Omit<HelmRenderInput, 'chart'>
}

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
  | { readonly helm: true; readonly code: HelmRenderCode; readonly message: string; readonly template?: string; readonly line?: number }
  | { readonly helm: false; readonly message: string }

/** What a worker posts once its modules are loaded, before any reply. */
export interface WorkerReady {
  readonly ready: true
}

/** What a worker answers. */
export interface RenderReply {
  readonly id: number
  readonly outcome: { readonly ok: true; readonly result: HelmRenderResult } | { readonly ok: false; readonly error: WorkerError }
}

export interface RenderPoolOptions {
  /** Concurrent renders. Default 2. */
  readonly size?: number
  /** How long past the render's time limit the engine may take to stop by itself before its worker is terminated. Default 2 s. */
  readonly graceMs?: number
  /** Old-generation heap of each worker. Default 512 MiB. */
  readonly maxHeapMb?: number
  /** The worker module; tests substitute one. It posts WorkerReady once loaded. */
  readonly workerUrl?: URL
  /** How long a new worker may take to load. Default 60 s. */
  readonly startupMs?: number
}

// Sources run as .ts in a checkout and as compiled .js from dist/.
const DEFAULT_WORKER = new URL(import.meta.url.endsWith('.ts') ? './helm-render-worker.ts' : './helm-render-worker.js', import.meta.url)

interface Job {
  readonly id: number
  readonly input: HelmRenderInput
  resolve(r: HelmRenderResult): void
  reject(e: Error): void
}

interface Slot {
  readonly worker: Worker
  job: Job | undefined
  timer: NodeJS.Timeout | undefined
  /** chartIds the worker holds, in its LRU order. */
  readonly charts: Map<number, true>
  /** The worker has loaded; until then a job waits (loading does not count against its time limit). */
  ready: boolean
}

function fromWorker(e: WorkerError): Error {
  if (!e.helm) return new Error(`chart render failed unexpectedly: ${e.message}`)
  return new HelmRenderError(e.code, e.message, {
    ...(e.template === undefined ? {} : { template: e.template }),
    ...(e.line === undefined ? {} : { line: e.line }),
  })
}

export function createRenderPool(opts: RenderPoolOptions = {}): ChartRenderer {
  const size = Math.max(1, opts.size ?? 2)
  const graceMs = opts.graceMs ?? 2000
  const maxHeapMb = opts.maxHeapMb ?? 512
  const workerUrl = opts.workerUrl ?? DEFAULT_WORKER
  const startupMs = opts.startupMs ?? 60_000
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
    if (slot.timer !== undefined) clearTimeout(slot.timer)
    slot.timer = undefined
    // An idle worker never keeps the process alive; a busy one does, like any pending I/O.
    slot.worker.unref()
    return job
  }

  const drop = (slot: Slot, why: Error | undefined): void => {
    const at = slots.indexOf(slot)
    if (at >= 0) slots.splice(at, 1)
    const job = settle(slot)
    if (job !== undefined) job.reject(why ?? new Error('the chart render worker exited'))
    void slot.worker.terminate()
    pump()
  }

  const spawn = (): Slot => {
    const worker = new Worker(workerUrl, { resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } })
    worker.unref()
    const slot: Slot = { worker, job: undefined, timer: undefined, charts: new Map(), ready: false }
    worker.on('message', (reply: RenderReply | WorkerReady) => {
      if ('ready' in reply) {
        slot.ready = true
        if (slot.job !== undefined) send(slot, slot.job)
        return
      }
      if (slot.job?.id !== reply.id) return
      const job = settle(slot)
      if (reply.outcome.ok) job?.resolve(reply.outcome.result)
      else job?.reject(fromWorker(reply.outcome.error))
      pump()
    })
    worker.on('error', (err: Error & { code?: string }) => {
      drop(
        slot,
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new HelmRenderError('Limit', `the chart render ran out of memory (${maxHeapMb} MiB) and was stopped`)
          : new Error(`the chart render worker failed: ${err.message}`, { cause: err }),
      )
    })
    worker.on('exit', () => drop(slot, undefined))
    slots.push(slot)
    return slot
  }

  const arm = (slot: Slot, ms: number, why: () => Error): void => {
    if (slot.timer !== undefined) clearTimeout(slot.timer)
    slot.timer = setTimeout(() => drop(slot, why()), ms)
    slot.timer.unref()
  }

  const send = (slot: Slot, job: Job): void => {
    const timeMs = job.input.limits?.timeMs ?? DEFAULT_RENDER_LIMITS.timeMs
    arm(
      slot,
      timeMs + graceMs,
      () =>
        new HelmRenderError('Limit', `the chart did not render within ${timeMs / 1000} s (its templates may loop); the render was stopped`),
    )
    const { chart, ...rest } = job.input
    const chartId = idOf(chart)
    const known = slot.charts.has(chartId)
    touchLru(slot.charts, chartId, true)
    slot.worker.postMessage({ id: job.id, chartId, input: rest, ...(known ? {} : { chart }) } satisfies RenderRequest)
  }

  const start = (slot: Slot, job: Job): void => {
    slot.job = job
    slot.worker.ref()
    if (slot.ready) send(slot, job)
    else arm(slot, startupMs, () => new Error(`the chart render worker did not start within ${startupMs / 1000} s`))
  }

  function pump(): void {
    while (!closed && queue.length > 0) {
      const slot = slots.find((s) => s.job === undefined) ?? (slots.length < size ? spawn() : undefined)
      if (slot === undefined) return
      start(slot, queue.shift() as Job)
    }
  }

  return {
    render(input) {
      if (closed) return Promise.reject(new Error('the chart render pool is closed'))
      return new Promise<HelmRenderResult>((resolve, reject) => {
        queue.push({ id: nextId++, input, resolve, reject })
        pump()
      })
    },
    async close() {
      closed = true
      for (const job of queue.splice(0)) job.reject(new Error('the chart render pool is closed'))
      await Promise.all(
        slots.splice(0).map((s) => {
          settle(s)?.reject(new Error('the chart render pool is closed'))
          return s.worker.terminate()
        }),
      )
    },
  }
}

/** Renders on the calling thread: for one-shot commands, where nothing else waits. */
export function inlineRenderer(render: (input: HelmRenderInput) => HelmRenderResult): ChartRenderer {
  return {
    render: async (input) => render(input),
    close: async () => {},
  }
}
