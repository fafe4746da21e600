// The Prometheus registry of a process, on prom-client. Each process (webhook,
// reconciler) builds one in its composition root and passes it down; the
// library's global registry is never used, so tests and several components in
// one process cannot share series by accident.
// What this adds to prom-client: a family is created once and then shared by
// name (three work queues report into one workqueue_depth), collect hooks
// refresh values computed on demand before each scrape, and readers give code
// and tests the value of one series.

import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'

export { Counter, Gauge, Histogram }

export const PROMETHEUS_CONTENT_TYPE: string = Registry.PROMETHEUS_CONTENT_TYPE

/** Label values of one series; prom-client formats numbers as their decimal text. */
export type Labels<L extends string> = Partial<Record<L, string | number>>

export interface MetricOptions<L extends string> {
  readonly name: string
  readonly help: string
  readonly labelNames?: readonly L[]
}

export interface HistogramOptions<L extends string> extends MetricOptions<L> {
  /** Upper bounds, ascending; +Inf is implied. */
  readonly buckets?: readonly number[]
}

/** Observations of one histogram series; bucket counts are cumulative, as Prometheus exposes them. */
export interface HistogramSnapshot {
  readonly count: number
  readonly sum: number
  readonly buckets: readonly { readonly le: number; readonly count: number }[]
}

/** Default buckets in seconds, from a millisecond reconcile to a minute-long one. */
export const DEFAULT_BUCKETS: readonly number[] = Object.freeze([0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60])

type MetricType = 'counter' | 'gauge' | 'histogram'

/** Bounds of the histograms made here; prom-client has no accessor for them. */
const histogramBounds = new WeakMap<object, readonly number[]>()
type AnyMetric = Counter<string> | Gauge<string> | Histogram<string>

interface Family {
  readonly type: MetricType
  readonly labelNames: readonly string[]
  readonly buckets: readonly number[] | undefined
  readonly metric: AnyMetric
}

// prom-client checks the name pattern of labels but neither the reserved prefix nor repeats.
function checkLabelNames(name: string, labelNames: readonly string[]): void {
  const seen = new Set<string>()
  for (const l of labelNames) {
    if (l.startsWith('__')) throw new Error(`metric ${name}: label name ${JSON.stringify(l)} is reserved`)
    if (seen.has(l)) throw new Error(`metric ${name}: label name ${l} is repeated`)
    seen.add(l)
  }
}

function checkBuckets(name: string, buckets: readonly number[]): void {
  if (buckets.length === 0) throw new Error(`histogram ${name}: needs at least one bucket`)
  for (let i = 0; i < buckets.length; i++) {
    const b = buckets[i] as number
    if (!Number.isFinite(b)) throw new Error(`histogram ${name}: bucket bound ${b} is not finite (+Inf is implied)`)
    if (i > 0 && b <= (buckets[i - 1] as number)) throw new Error(`histogram ${name}: bucket bounds must increase strictly`)
  }
}

const sameList = (a: readonly unknown[] | undefined, b: readonly unknown[] | undefined): boolean =>
  a === b || (a !== undefined && b !== undefined && a.length === b.length && a.every((x, i) => x === b[i]))

export interface RegistryOptions {
  /**
   * prom-client's process and Node.js metrics (CPU, memory, file descriptors,
   * event loop lag, heap spaces, GC). For the registry a process serves; off for
   * private registries, since each set adds a GC observer and an event-loop monitor.
   */
  readonly processMetrics?: boolean
}

export class MetricsRegistry {
  readonly contentType: string = PROMETHEUS_CONTENT_TYPE
  /** The prom-client registry behind this one. */
  readonly prom: Registry = new Registry()
  private readonly families = new Map<string, Family>()
  private readonly collectors = new Set<() => void>()

  constructor(opts: RegistryOptions = {}) {
    if (opts.processMetrics) collectDefaultMetrics({ register: this.prom })
  }

  /** The counter of that name, created on first use; a second request with another shape fails. */
  counter<L extends string = never>(opts: MetricOptions<L>): Counter<L> {
    return this.family('counter', opts, undefined, (config) => new Counter<L>(config)) as Counter<L>
  }

  gauge<L extends string = never>(opts: MetricOptions<L>): Gauge<L> {
    return this.family('gauge', opts, undefined, (config) => new Gauge<L>(config)) as Gauge<L>
  }

  histogram<L extends string = never>(opts: HistogramOptions<L>): Histogram<L> {
    const buckets = Object.freeze([...(opts.buckets ?? DEFAULT_BUCKETS)])
    return this.family('histogram', opts, buckets, (config) => new Histogram<L>({ ...config, buckets: [...buckets] })) as Histogram<L>
  }

  /** Runs fn before each render, to refresh values computed on demand; returns the unregister function. */
  onCollect(fn: () => void): () => void {
    this.collectors.add(fn)
    return () => {
      this.collectors.delete(fn)
    }
  }

  /** The text exposition (format 0.0.4) of every metric, after the collect hooks ran. */
  async render(): Promise<string> {
    for (const fn of this.collectors) {
      try {
        fn()
      } catch {
        // One broken collector must not fail the whole scrape; its metrics keep their last values.
      }
    }
    return this.prom.metrics()
  }

  private family<L extends string>(
    type: MetricType,
    opts: MetricOptions<L>,
    buckets: readonly number[] | undefined,
    make: (config: { name: string; help: string; labelNames: L[]; registers: Registry[] }) => AnyMetric,
  ): AnyMetric {
    const labelNames = opts.labelNames ?? []
    const existing = this.families.get(opts.name)
    if (existing) {
      if (existing.type !== type || !sameList(existing.labelNames, labelNames)) {
        throw new Error(
          `metric ${opts.name} is already registered as a ${existing.type} with labels {${existing.labelNames.join(',')}}; ` +
            `asked for a ${type} with labels {${labelNames.join(',')}}`,
        )
      }
      if (!sameList(existing.buckets, buckets)) throw new Error(`metric ${opts.name} is already registered with different buckets`)
      return existing.metric
    }
    checkLabelNames(opts.name, labelNames)
    if (buckets) checkBuckets(opts.name, buckets)
    let metric: AnyMetric
    try {
      metric = make({ name: opts.name, help: opts.help, labelNames: [...labelNames], registers: [this.prom] })
    } catch (e) {
      // prom-client's messages do not say which metric ("Invalid metric name").
      throw new Error(`metric ${JSON.stringify(opts.name)}: ${(e as Error).message}`)
    }
    this.families.set(opts.name, { type, labelNames: Object.freeze([...labelNames]), buckets, metric })
    if (buckets) histogramBounds.set(metric, buckets)
    return metric
  }
}

/** What a bounded label reports for every value past its limit. */
export const OTHER_LABEL_VALUE = '_other'

/** How many namespaces a namespace label names before the rest report as OTHER_LABEL_VALUE. */
export const NAMESPACE_LABEL_LIMIT = 200

/**
 * Values of a label that come from the cluster (namespaces): the first `limit`
 * distinct values are reported as they are and every later one as
 * OTHER_LABEL_VALUE, so that no cluster can grow a metric's series without
 * bound. Which values are kept is first come, first kept, per process.
 */
export class BoundedLabelValues {
  readonly limit: number
  readonly #kept = new Set<string>()

  constructor(limit: number = NAMESPACE_LABEL_LIMIT) {
    if (!(Number.isInteger(limit) && limit >= 0)) throw new RangeError(`label value limit must be a whole number >= 0, got ${limit}`)
    this.limit = limit
  }

  /** The label value to report for value. */
  of(value: string): string {
    if (this.#kept.has(value)) return value
    if (this.#kept.size >= this.limit) return OTHER_LABEL_VALUE
    this.#kept.add(value)
    return value
  }
}

/** The registry a process serves on /metrics: its own metrics plus prom-client's process and Node.js metrics. */
export function createProcessRegistry(): MetricsRegistry {
  return new MetricsRegistry({ processMetrics: true })
}

interface SeriesValue {
  readonly value: number
  readonly labels: Readonly<Record<string, string | number | undefined>>
  readonly metricName?: string
}

/** Whether a series' labels are exactly `want` (values compared as text, as they are exposed). */
function labelsAre(have: SeriesValue['labels'], want: Readonly<Record<string, string | number | undefined>>, ignore?: string): boolean {
  let n = 0
  for (const k of Object.keys(have)) {
    if (k === ignore) continue
    n++
    if (!Object.hasOwn(want, k) || String(want[k]) !== String(have[k])) return false
  }
  return n === Object.keys(want).length
}

/** The value of one counter or gauge series; 0 for a series never observed. */
export async function readValue<L extends string>(metric: Counter<L> | Gauge<L>, labels: Labels<L> = {}): Promise<number> {
  const { values } = await metric.get()
  for (const v of values as readonly SeriesValue[]) if (labelsAre(v.labels, labels)) return v.value
  return 0
}

/** Count, sum and cumulative buckets of one histogram series; zeros for a series never observed. */
export async function readHistogram<L extends string>(metric: Histogram<L>, labels: Labels<L> = {}): Promise<HistogramSnapshot> {
  const { name, values } = await metric.get()
  let count = 0
  let sum = 0
  const buckets: { le: number; count: number }[] = []
  const bounds: number[] = []
  for (const v of values as readonly SeriesValue[]) {
    if (v.metricName === `${name}_bucket`) {
      const le = Number(v.labels.le)
      if (Number.isFinite(le) && !bounds.includes(le)) bounds.push(le)
      if (Number.isFinite(le) && labelsAre(v.labels, labels, 'le')) buckets.push({ le, count: v.value })
    } else if (labelsAre(v.labels, labels)) {
      if (v.metricName === `${name}_sum`) sum = v.value
      else if (v.metricName === `${name}_count`) count = v.value
    }
  }
  // A series never observed has no values: its buckets are the histogram's bounds, all at 0.
  if (buckets.length === 0) for (const le of histogramBounds.get(metric) ?? bounds) buckets.push({ le, count: 0 })
  return { count, sum, buckets }
}
