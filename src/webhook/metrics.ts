// The webhook's metric set, in the registry of the process
// (src/telemetry/metrics.ts). Built by the composition root and passed down;
// nothing here is created at import time.

import { type Counter, type Gauge, type Histogram, MetricsRegistry } from '../telemetry/metrics.ts'

/** What a cache exposes to metrics: the Reflector has all of these. */
export interface ObservedCache {
  readonly name: string
  hasSynced(): boolean
  size(): number
  readonly recoveries: Readonly<Record<string, number>>
}

export interface WebhookMetrics {
  readonly registry: MetricsRegistry
  /** Admission decisions by result (allow, warn, deny), reason and operation. */
  readonly decisions: Counter<'result' | 'reason' | 'operation'>
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
      help: 'Admission decisions by result (allow, warn, deny), reason and operation.',
      labelNames: ['result', 'reason', 'operation'],
    }),
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
  }
  return m
}

/** Mirrors cache state into the metrics at scrape time; returns the unregister function. */
export function observeCaches(metrics: WebhookMetrics, caches: readonly ObservedCache[]): () => void {
  // Reflectors keep running totals; the counter advances by what is new since the last scrape.
  const seen = new Map<string, number>()
  return metrics.registry.onCollect(() => {
    for (const c of caches) {
      metrics.cacheSynced.set({ cache: c.name }, c.hasSynced() ? 1 : 0)
      metrics.cacheObjects.set({ cache: c.name }, c.size())
      for (const [kind, total] of Object.entries(c.recoveries)) {
        const key = `${c.name}\u0000${kind}`
        const delta = total - (seen.get(key) ?? 0)
        if (delta > 0) metrics.reflectorRecoveries.inc({ cache: c.name, kind }, delta)
        else if (!seen.has(key)) metrics.reflectorRecoveries.inc({ cache: c.name, kind }, 0)
        seen.set(key, total)
      }
    }
  })
}
