// The webhook's metric set, in the registry of the process
// (src/telemetry/metrics.ts). Built by the composition root and passed down;
// nothing here is created at import time.

import { type ObservedCache, observeCacheState } from '../telemetry/caches.ts'
import { BoundedLabelValues, type Counter, type Gauge, type Histogram, MetricsRegistry } from '../telemetry/metrics.ts'

export type { ObservedCache }

export interface WebhookMetrics {
  readonly registry: MetricsRegistry
  /** Admission decisions by result (allow, warn, deny), reason, operation and the sync mode judged under (none before one is known). */
  readonly decisions: Counter<'result' | 'reason' | 'operation' | 'mode'>
  /** Denials by the namespace of the owning TemplateInstance (bounded, see instanceNamespaces) and reason. */
  readonly denials: Counter<'instance_namespace' | 'reason'>
  /** The values `instance_namespace` may take: the first NAMESPACE_LABEL_LIMIT namespaces, then "_other". */
  readonly instanceNamespaces: BoundedLabelValues
  /** Envelope check plus decision for one review, by result. */
  readonly duration: Histogram<'result'>
  /** Size of judged review bodies: how close real traffic comes to the body limit. */
  readonly bodyBytes: Histogram<never>
  /** Requests answered with an HTTP error instead of a review, by status code and cause. */
  readonly rejected: Counter<'code' | 'cause'>
  /** Serving certificate reloads by result (loaded, rejected). */
  readonly certReloads: Counter<'result'>
  readonly certNotAfter: Gauge<never>
  readonly cacheSynced: Gauge<'cache'>
  readonly cacheObjects: Gauge<'cache'>
  readonly reflectorRecoveries: Counter<'cache' | 'kind'>
  readonly ignoreCompileErrors: Counter<never>
  readonly ready: Gauge<never>
  /** HTTP requests on the admission listener that have not been answered yet. */
  readonly inflight: Gauge<never>
  /** Open connections to the admission listener, and the most it keeps open. */
  readonly connections: Gauge<never>
  readonly maxConnections: Gauge<never>
  /** Bytes of request bodies held while they arrive, and the most that may be held (docs/webhook-limits.md). */
  readonly bodyBudgetUsed: Gauge<never>
  readonly bodyBudgetCapacity: Gauge<never>
}

const PREFIX = 'template_sync_webhook'

// Decisions take well under a millisecond; the upper buckets catch GC pauses and very large bodies.
const MiB = 1024 * 1024
// From a small ConfigMap to the 32 MiB limit; escaped worst-case objects sit in the top buckets.
const BODY_BUCKETS = [4096, 16384, 65536, 262144, MiB, 4 * MiB, 8 * MiB, 16 * MiB, 24 * MiB, 32 * MiB]
const DURATION_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]

/**
 * The webhook's metrics in registry. The process passes the registry it serves
 * (createProcessRegistry, with the process and Node.js metrics); tests and the
 * benchmark may leave it out.
 */
export function createWebhookMetrics(registry: MetricsRegistry = new MetricsRegistry()): WebhookMetrics {
  const m: WebhookMetrics = {
    registry,
    decisions: registry.counter({
      name: `${PREFIX}_decisions_total`,
      help: 'Admission decisions by result (allow, warn, deny), reason, operation and sync mode (none before the Template is known).',
      labelNames: ['result', 'reason', 'operation', 'mode'],
    }),
    denials: registry.counter({
      name: `${PREFIX}_denials_total`,
      help: 'Denied admission requests by the namespace of the owning TemplateInstance and reason.',
      labelNames: ['instance_namespace', 'reason'],
    }),
    instanceNamespaces: new BoundedLabelValues(),
    duration: registry.histogram({
      name: `${PREFIX}_decision_duration_seconds`,
      help: 'Time to check the envelope of one admission review and decide it, by result.',
      labelNames: ['result'],
      buckets: DURATION_BUCKETS,
    }),
    bodyBytes: registry.histogram({
      name: `${PREFIX}_review_body_bytes`,
      help: 'Size of the admission review bodies that were judged (Content-Length).',
      buckets: BODY_BUCKETS,
    }),
    rejected: registry.counter({
      name: `${PREFIX}_rejected_requests_total`,
      help: 'Requests answered with an HTTP error instead of a review, by status code and cause.',
      labelNames: ['code', 'cause'],
    }),
    certReloads: registry.counter({
      name: `${PREFIX}_cert_reloads_total`,
      help: 'Serving certificate reloads by result (loaded, rejected).',
      labelNames: ['result'],
    }),
    certNotAfter: registry.gauge({
      name: `${PREFIX}_cert_not_after_seconds`,
      help: 'Expiry of the serving certificate in use, as a Unix time.',
    }),
    cacheSynced: registry.gauge({
      name: `${PREFIX}_cache_synced`,
      help: '1 once the cache has completed its first list.',
      labelNames: ['cache'],
    }),
    cacheObjects: registry.gauge({ name: `${PREFIX}_cache_objects`, help: 'Objects held in the cache.', labelNames: ['cache'] }),
    reflectorRecoveries: registry.counter({
      name: `${PREFIX}_reflector_recoveries_total`,
      help: 'List/watch recoveries by cache and kind (relist-gone, reconnect, stall, error).',
      labelNames: ['cache', 'kind'],
    }),
    ignoreCompileErrors: registry.counter({
      name: `${PREFIX}_ignore_compile_errors_total`,
      help: 'Template generations whose sync.ignoreFields did not compile (nothing is then exempt).',
    }),
    ready: registry.gauge({ name: `${PREFIX}_ready`, help: '1 while the webhook reports ready.' }),
    inflight: registry.gauge({ name: `${PREFIX}_inflight_requests`, help: 'Requests to the admission listener not answered yet.' }),
    connections: registry.gauge({ name: `${PREFIX}_open_connections`, help: 'Open connections to the admission listener.' }),
    maxConnections: registry.gauge({
      name: `${PREFIX}_max_connections`,
      help: 'Most connections the admission listener keeps open; more are dropped.',
    }),
    bodyBudgetUsed: registry.gauge({
      name: `${PREFIX}_body_budget_used_bytes`,
      help: 'Bytes of admission review bodies held while they arrive.',
    }),
    bodyBudgetCapacity: registry.gauge({
      name: `${PREFIX}_body_budget_capacity_bytes`,
      help: 'Most bytes of review bodies held at once; a body past it is answered 503.',
    }),
  }
  // The answers an alert on failing admission looks for exist from the start, at 0.
  for (const [code, cause] of [
    ['500', 'Internal'],
    ['503', 'NotReady'],
    ['503', 'Busy'],
  ] as const)
    m.rejected.inc({ code, cause }, 0)
  return m
}

/** Mirrors cache state into the metrics at scrape time; returns the unregister function. */
export function observeCaches(metrics: WebhookMetrics, caches: readonly ObservedCache[]): () => void {
  const instruments = { synced: metrics.cacheSynced, objects: metrics.cacheObjects, recoveries: metrics.reflectorRecoveries }
  return observeCacheState(metrics.registry, instruments, () => caches.map((c) => [c.name, c] as const))
}
