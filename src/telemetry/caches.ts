// Cache state into metrics at scrape time, for both processes: whether each
// cache has synced, how many objects it holds, and how often its list/watch
// had to recover. Caches are read at every scrape, so watches that start and
// stop between scrapes (the reconciler's drift watches) are counted too.

import type { Counter, Gauge, MetricsRegistry } from './metrics.ts'

/** What a cache exposes to metrics: the Reflector has all of these. */
export interface ObservedCache {
  readonly name: string
  hasSynced(): boolean
  size(): number
  /** Running totals of list/watch recoveries by kind (relist-gone, reconnect, stall, error). */
  readonly recoveries: Readonly<Record<string, number>>
}

export interface CacheInstruments {
  readonly synced: Gauge<'cache'>
  readonly objects: Gauge<'cache'>
  readonly recoveries: Counter<'cache' | 'kind'>
}

/** A cache and the `cache` label it reports under. */
export type LabelledCache = readonly [label: string, cache: ObservedCache]

/**
 * Mirrors the caches `list` returns into the instruments before each scrape;
 * returns the unregister function. Caches that share a label report
 * together: synced only when all of them are, objects and recoveries added
 * up. A label none of the caches carries any more is dropped.
 */
export function observeCacheState(registry: MetricsRegistry, m: CacheInstruments, list: () => Iterable<LabelledCache>): () => void {
  // Caches keep running totals; the counter advances by what is new since the last scrape.
  const seen = new WeakMap<ObservedCache, Record<string, number>>()
  const exposed = new Set<string>()
  let labels = new Set<string>()
  return registry.onCollect(() => {
    const synced = new Map<string, boolean>()
    const objects = new Map<string, number>()
    for (const [label, c] of list()) {
      synced.set(label, (synced.get(label) ?? true) && c.hasSynced())
      objects.set(label, (objects.get(label) ?? 0) + c.size())
      const before = seen.get(c) ?? {}
      for (const [kind, total] of Object.entries(c.recoveries)) {
        const delta = total - (before[kind] ?? 0)
        const series = `${label}\u0000${kind}`
        // Every kind is exposed from the start, at 0, so a rate over it exists before the first recovery.
        if (delta > 0 || !exposed.has(series)) m.recoveries.inc({ cache: label, kind }, Math.max(0, delta))
        exposed.add(series)
      }
      seen.set(c, { ...c.recoveries })
    }
    for (const [label, ok] of synced) m.synced.set({ cache: label }, ok ? 1 : 0)
    for (const [label, n] of objects) m.objects.set({ cache: label }, n)
    for (const label of labels) {
      if (synced.has(label)) continue
      m.synced.remove({ cache: label })
      m.objects.remove({ cache: label })
    }
    labels = new Set(synced.keys())
  })
}
