// Reconcile metrics under controller-runtime's names and labels, so the
// dashboards and alerts written for controller-runtime operators read them as
// they are: one series per controller (the work queue's name) and result.
// runWorkers (workers.ts) records one observation per key it handles.
// And what passes did to rendered objects (corrections, fights, failed
// requests), counted from their change sets by the instance's namespace;
// corrections also by who had changed the object (writers.ts).

import { BoundedLabelValues, type Counter, DEFAULT_BUCKETS, type Histogram, type MetricsRegistry } from '../telemetry/metrics.ts'
import type { ChangeSetEntry } from '../apply/changeset.ts'
import { type ComponentTable, DEFAULT_COMPONENTS, writerOfManager } from '../api/writers.ts'

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

/** What passes did to rendered objects, by the namespace of the TemplateInstance (bounded). */
export interface ChangeMetrics {
  /** Drift put back, by who had written it (CorrectionWriter). */
  readonly corrections: Counter<'instance_namespace' | 'writer'>
  /** Fights reported: an object drifted back right after corrections, DriftConflict began. */
  readonly conflicts: Counter<'instance_namespace'>
  /** Requests about rendered objects that failed, by operation (dry-run, apply, delete, release). */
  readonly failures: Counter<'instance_namespace' | 'operation'>
  /** The values `instance_namespace` may take: the first NAMESPACE_LABEL_LIMIT namespaces, then "_other". */
  readonly namespaces: BoundedLabelValues
  /** Tells the cluster's components from other writers by their field manager. */
  readonly components: ComponentTable
}

/**
 * Who had changed an object that was put back: `other` when any writer was
 * neither a component nor template-sync, `component` when all were
 * components (one wrote a field the Template renders), `unknown` when no
 * managedFields entry named one.
 */
export type CorrectionWriter = 'component' | 'other' | 'unknown'

export function correctionWriter(managers: readonly string[], components: ComponentTable): CorrectionWriter {
  const kinds = managers.filter((m) => m !== 'unknown').map((m) => writerOfManager(m, components))
  if (kinds.includes('other')) return 'other'
  return kinds.includes('component') ? 'component' : 'unknown'
}

export function createChangeMetrics(registry: MetricsRegistry, components: ComponentTable = DEFAULT_COMPONENTS): ChangeMetrics {
  return {
    corrections: registry.counter({
      name: 'template_sync_corrections_total',
      help: 'Rendered objects whose drift was put back, by the namespace of their TemplateInstance and who had written it (component, other, unknown).',
      labelNames: ['instance_namespace', 'writer'],
    }),
    conflicts: registry.counter({
      name: 'template_sync_drift_conflicts_total',
      help: 'Fights over rendered objects reported as DriftConflict, by the namespace of their TemplateInstance.',
      labelNames: ['instance_namespace'],
    }),
    failures: registry.counter({
      name: 'template_sync_object_failures_total',
      help: 'Failed requests about rendered objects, by the namespace of their TemplateInstance and operation.',
      labelNames: ['instance_namespace', 'operation'],
    }),
    namespaces: new BoundedLabelValues(),
    components,
  }
}

/** Counts the change set of one pass over an instance in instanceNamespace. */
export function countChanges(m: ChangeMetrics, instanceNamespace: string, changes: readonly ChangeSetEntry[]): void {
  let namespace: string | undefined
  const label = (): string => {
    namespace ??= m.namespaces.of(instanceNamespace)
    return namespace
  }
  for (const e of changes) {
    if (e.action === 'corrected') m.corrections.inc({ instance_namespace: label(), writer: correctionWriter(e.writers, m.components) })
    else if (e.action === 'fight' && e.notice.kind === 'conflict') m.conflicts.inc({ instance_namespace: label() })
    else if (e.action === 'failed') m.failures.inc({ instance_namespace: label(), operation: e.error.operation })
  }
}
