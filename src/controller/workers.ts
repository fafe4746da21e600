// Worker loops over a WorkQueue. A failed key is retried through the queue's
// rate limiter (never in a tight loop, never lost); a successful key has its
// backoff reset and may ask to be looked at again later (periodic checks,
// waiting for another object to become ready). Both come back at the priority
// the key was taken with, as controller-runtime requeues: a correction that
// must wait stays a correction, a bulk re-render stays behind it.

import type { WorkQueue } from './queue.ts'
import { initReconcileMetrics, recordReconcile, type ReconcileMetrics, type ReconcileResult } from './metrics.ts'
import { type LogFn, noLog } from '../telemetry/log.ts'

export interface HandlerResult {
  /** Look at the key again after this long, even without a new event. */
  readonly requeueAfterMs?: number
}

// biome-ignore lint/suspicious/noConfusingVoidType: handlers that never requeue are plain async functions
export type KeyHandler<K extends string> = (key: K) => Promise<HandlerResult | void>

export interface RunWorkersOptions {
  readonly log?: LogFn
  /** Aborting it shuts the queue down; workers finish their current key and return. */
  readonly signal?: AbortSignal
  /** Counts each reconcile under the queue's name as the controller. */
  readonly metrics?: ReconcileMetrics
}

/**
 * Runs n workers (at least 1) until the queue is shut down, then resolves
 * once every worker has finished its current key.
 */
export async function runWorkers<K extends string>(
  queue: WorkQueue<K>,
  n: number,
  handler: KeyHandler<K>,
  opts: RunWorkersOptions = {},
): Promise<void> {
  const log = opts.log ?? noLog
  const safeLog: LogFn = (level, msg, fields) => {
    try {
      log(level, msg, fields)
    } catch {
      // A broken logger must not stop the workers.
    }
  }
  const signal = opts.signal
  const onAbort = (): void => queue.shutDown()
  if (signal?.aborted) queue.shutDown()
  else signal?.addEventListener('abort', onAbort, { once: true })

  const count = Math.max(1, Math.floor(Number.isFinite(n) ? n : 1))
  const metrics = opts.metrics
  if (metrics) initReconcileMetrics(metrics, queue.name)
  const worker = async (id: number): Promise<void> => {
    for (;;) {
      const item = await queue.getWithPriority()
      if (item === undefined) return
      const { key, priority } = item
      const started = performance.now()
      let outcome: ReconcileResult = 'error'
      try {
        const result = await handler(key)
        queue.forget(key)
        const after = result?.requeueAfterMs
        outcome = 'success'
        if (after !== undefined && after >= 0) {
          queue.addAfter(key, after, priority)
          outcome = 'requeue_after'
        }
      } catch (err) {
        safeLog('error', 'processing failed; retrying with backoff', {
          queue: queue.name,
          worker: id,
          key,
          requeues: queue.numRequeues(key),
          priority,
          err,
        })
        queue.addRateLimited(key, priority)
      } finally {
        if (metrics) recordReconcile(metrics, queue.name, outcome, (performance.now() - started) / 1000)
        queue.done(key)
      }
    }
  }
  try {
    await Promise.all(Array.from({ length: count }, (_, i) => worker(i)))
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
  safeLog('debug', 'workers stopped', { queue: queue.name, workers: count })
}
