// Reconcile metrics under controller-runtime's names and labels, so the
// dashboards and alerts written for controller-runtime operators read them as
// they are: one series per controller (the work queue's name) and result.
// runWorkers (workers.ts) records one observation per key it handles.

import { type Counter, DEFAULT_BUCKETS, type Histogram, type MetricsRegistry } from '../telemetry/metrics.ts'

/** success: done; requeue_after: done, look again later; error: failed, retried with backoff. */
export const RECONCILE_RESULTS = ['success', 'requeue_after', 'error'] as const
export type ReconcileResult = (typeof RECONCILE_RESULTS)[number]

export interface ReconcileMetrics {
  readonly total: Counter<'controller' | 'result'>
  readonly errors: Counter<'controller'>
  readonly duration: Histogram<'controller' | 'result'>
}

export function createReconcileMetrics(registry: MetricsRegistry): ReconcileMetrics {
  return {
    total: registry.counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Reconciles per controller, by result (success, requeue_after, error).',
      labelNames: ['controller', 'result'],
    }),
    errors: registry.counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Reconciles per controller that failed and were queued again with backoff.',
      labelNames: ['controller'],
    }),
    duration: registry.histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Time one reconcile took, per controller and result.',
      labelNames: ['controller', 'result'],
      buckets: DEFAULT_BUCKETS,
    }),
  }
}

/** Exposes every series of controller at 0, so a rate over them exists before the first reconcile. */
export function initReconcileMetrics(m: ReconcileMetrics, controller: string): void {
  for (const result of RECONCILE_RESULTS) {
    m.total.inc({ controller, result }, 0)
    m.duration.zero({ controller, result })
  }
  m.errors.inc({ controller }, 0)
}

/** Counts one reconcile of controller that took seconds. */
export function recordReconcile(m: ReconcileMetrics, controller: string, result: ReconcileResult, seconds: number): void {
  m.total.inc({ controller, result })
  if (result === 'error') m.errors.inc({ controller })
  m.duration.observe({ controller, result }, seconds)
}
