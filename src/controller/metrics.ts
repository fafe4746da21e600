// A small Prometheus registry that renders the text exposition format
// (version 0.0.4): counters, gauges and histograms with labels. It has no
// dependencies so that every part of the process (work queue, reconcilers,
// webhook) can share one registry built in main.ts; nothing here is global.

export type Labels = Readonly<Record<string, string>>

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'

export interface MetricOptions {
  readonly name: string
  readonly help: string
  readonly labelNames?: readonly string[]
}

export interface HistogramOptions extends MetricOptions {
  /** Upper bounds, ascending; +Inf is implied. */
  readonly buckets?: readonly number[]
}

/** Observations of one histogram series; bucket counts are cumulative, as Prometheus exposes them. */
export interface HistogramSnapshot {
  readonly count: number
  readonly sum: number
  readonly buckets: readonly { readonly le: number; readonly count: number }[]
}

export type MetricType = 'counter' | 'gauge' | 'histogram'

/** Default buckets in seconds, from a millisecond reconcile to a minute-long one. */
export const DEFAULT_BUCKETS: readonly number[] = Object.freeze([0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60])

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/

function checkOptions(type: MetricType, opts: MetricOptions): readonly string[] {
  if (!METRIC_NAME.test(opts.name)) throw new Error(`metric name ${JSON.stringify(opts.name)} is not a valid Prometheus name`)
  const labelNames = opts.labelNames ?? []
  const seen = new Set<string>()
  for (const l of labelNames) {
    if (!LABEL_NAME.test(l) || l.startsWith('__')) throw new Error(`metric ${opts.name}: label name ${JSON.stringify(l)} is not valid`)
    if (type === 'histogram' && l === 'le') throw new Error(`metric ${opts.name}: a histogram cannot have a label named "le"`)
    if (seen.has(l)) throw new Error(`metric ${opts.name}: label name ${l} is repeated`)
    seen.add(l)
  }
  return Object.freeze([...labelNames])
}

/** Label values in declaration order; throws when the set of labels differs from the declared one. */
function labelValues(metric: string, labelNames: readonly string[], labels: Labels | undefined): string[] {
  const given = labels ?? {}
  const values: string[] = []
  let givenCount = 0
  for (const k in given) if (Object.hasOwn(given, k)) givenCount++
  let ok = givenCount === labelNames.length
  for (let i = 0; ok && i < labelNames.length; i++) {
    const v = Object.hasOwn(given, labelNames[i] as string) ? given[labelNames[i] as string] : undefined
    if (typeof v !== 'string') ok = false
    else values.push(v)
  }
  if (!ok) {
    throw new Error(`metric ${metric}: labels {${Object.keys(given).join(',')}} do not match the declared labels {${labelNames.join(',')}}`)
  }
  return values
}

/**
 * The series key of label values: each value prefixed by its length, so no
 * value can run into the next one whatever characters it holds.
 */
function seriesKey(values: readonly string[]): string {
  let key = ''
  for (const v of values) key += `${v.length}:${v}`
  return key
}

const escapeLabelValue = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')
const escapeHelp = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')

export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN'
  if (v === Infinity) return '+Inf'
  if (v === -Infinity) return '-Inf'
  return String(v)
}

function formatLabels(names: readonly string[], values: readonly string[], extra?: [string, string]): string {
  const parts = names.map((n, i) => `${n}="${escapeLabelValue(values[i] ?? '')}"`)
  if (extra) parts.push(`${extra[0]}="${escapeLabelValue(extra[1])}"`)
  return parts.length ? `{${parts.join(',')}}` : ''
}

interface Series<V> {
  readonly values: readonly string[]
  data: V
}

/** Shared by the three metric kinds: series keyed by their label values. */
abstract class Metric<V> {
  readonly name: string
  readonly help: string
  readonly labelNames: readonly string[]
  abstract readonly type: MetricType
  /** Every series in creation order (rendering), by seriesKey. */
  protected readonly series = new Map<string, Series<V>>()
  /**
   * The same series by label value, one Map level per label. Lookups walk it
   * with the values as given: no key string is built and hashed per
   * observation, which the webhook makes three of per request.
   */
  private readonly index = new Map<string, unknown>()

  constructor(type: MetricType, opts: MetricOptions) {
    this.labelNames = checkOptions(type, opts)
    this.name = opts.name
    this.help = opts.help
  }

  protected abstract initial(): V

  /** The leaf map and last value for values, creating the levels on the way when asked. */
  private leafOf(values: readonly string[], create: boolean): Map<string, unknown> | undefined {
    let node = this.index
    for (let i = 0; i < values.length - 1; i++) {
      let next = node.get(values[i] as string) as Map<string, unknown> | undefined
      if (next === undefined) {
        if (!create) return undefined
        next = new Map()
        node.set(values[i] as string, next)
      }
      node = next
    }
    return node
  }

  protected seriesFor(labels: Labels | undefined): Series<V> {
    const values = labelValues(this.name, this.labelNames, labels)
    if (values.length === 0) {
      let s = this.series.get('')
      if (!s) {
        s = { values, data: this.initial() }
        this.series.set('', s)
      }
      return s
    }
    const leaf = this.leafOf(values, true) as Map<string, unknown>
    const last = values[values.length - 1] as string
    let s = leaf.get(last) as Series<V> | undefined
    if (!s) {
      s = { values, data: this.initial() }
      leaf.set(last, s)
      this.series.set(seriesKey(values), s)
    }
    return s
  }

  protected peek(labels: Labels | undefined): V | undefined {
    return this.series.get(seriesKey(labelValues(this.name, this.labelNames, labels)))?.data
  }

  /** Drops one series (e.g. a queue that no longer exists), or all of them. */
  remove(labels?: Labels): void {
    if (labels === undefined && this.labelNames.length > 0) {
      this.series.clear()
      this.index.clear()
      return
    }
    const values = labelValues(this.name, this.labelNames, labels)
    this.series.delete(seriesKey(values))
    if (values.length > 0) this.leafOf(values, false)?.delete(values[values.length - 1] as string)
  }

  protected abstract renderSeries(s: Series<V>, out: string[]): void

  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${escapeHelp(this.help)}`)
    out.push(`# TYPE ${this.name} ${this.type}`)
    // A metric without labels is always exposed, so dashboards see a 0 rather than no series.
    if (this.labelNames.length === 0 && this.series.size === 0) this.seriesFor(undefined)
    for (const s of this.series.values()) this.renderSeries(s, out)
  }
}

export class Counter extends Metric<{ value: number }> {
  readonly type = 'counter'

  constructor(opts: MetricOptions) {
    super('counter', opts)
  }

  protected initial(): { value: number } {
    return { value: 0 }
  }

  inc(labels?: Labels, by = 1): void {
    if (!(by >= 0)) throw new Error(`counter ${this.name}: cannot increase by ${by}`)
    this.seriesFor(labels).data.value += by
  }

  get(labels?: Labels): number {
    return this.peek(labels)?.value ?? 0
  }

  protected renderSeries(s: Series<{ value: number }>, out: string[]): void {
    out.push(`${this.name}${formatLabels(this.labelNames, s.values)} ${formatValue(s.data.value)}`)
  }
}

export class Gauge extends Metric<{ value: number }> {
  readonly type = 'gauge'

  constructor(opts: MetricOptions) {
    super('gauge', opts)
  }

  protected initial(): { value: number } {
    return { value: 0 }
  }

  set(value: number, labels?: Labels): void {
    this.seriesFor(labels).data.value = value
  }

  inc(labels?: Labels, by = 1): void {
    this.seriesFor(labels).data.value += by
  }

  dec(labels?: Labels, by = 1): void {
    this.seriesFor(labels).data.value -= by
  }

  get(labels?: Labels): number {
    return this.peek(labels)?.value ?? 0
  }

  protected renderSeries(s: Series<{ value: number }>, out: string[]): void {
    out.push(`${this.name}${formatLabels(this.labelNames, s.values)} ${formatValue(s.data.value)}`)
  }
}

interface HistogramData {
  count: number
  sum: number
  /** Per-bucket (not cumulative) counts, one per finite bound. */
  counts: number[]
}

export class Histogram extends Metric<HistogramData> {
  readonly type = 'histogram'
  readonly buckets: readonly number[]

  constructor(opts: HistogramOptions) {
    super('histogram', opts)
    const buckets = opts.buckets ?? DEFAULT_BUCKETS
    if (buckets.length === 0) throw new Error(`histogram ${this.name}: needs at least one bucket`)
    for (let i = 0; i < buckets.length; i++) {
      const b = buckets[i] as number
      if (!Number.isFinite(b)) throw new Error(`histogram ${this.name}: bucket bound ${b} is not finite (+Inf is implied)`)
      if (i > 0 && b <= (buckets[i - 1] as number)) throw new Error(`histogram ${this.name}: bucket bounds must increase strictly`)
    }
    this.buckets = Object.freeze([...buckets])
  }

  protected initial(): HistogramData {
    return { count: 0, sum: 0, counts: this.buckets.map(() => 0) }
  }

  observe(value: number, labels?: Labels): void {
    if (Number.isNaN(value)) throw new Error(`histogram ${this.name}: cannot observe NaN`)
    const d = this.seriesFor(labels).data
    d.count++
    d.sum += value
    const buckets = this.buckets
    for (let i = 0; i < buckets.length; i++) {
      if (value <= (buckets[i] as number)) {
        d.counts[i] = (d.counts[i] ?? 0) + 1
        break
      }
    }
  }

  snapshot(labels?: Labels): HistogramSnapshot {
    const d = this.peek(labels) ?? this.initial()
    let acc = 0
    const buckets = this.buckets.map((le, i) => {
      acc += d.counts[i] ?? 0
      return { le, count: acc }
    })
    return { count: d.count, sum: d.sum, buckets }
  }

  protected renderSeries(s: Series<HistogramData>, out: string[]): void {
    let acc = 0
    this.buckets.forEach((le, i) => {
      acc += s.data.counts[i] ?? 0
      out.push(`${this.name}_bucket${formatLabels(this.labelNames, s.values, ['le', formatValue(le)])} ${acc}`)
    })
    out.push(`${this.name}_bucket${formatLabels(this.labelNames, s.values, ['le', '+Inf'])} ${s.data.count}`)
    out.push(`${this.name}_sum${formatLabels(this.labelNames, s.values)} ${formatValue(s.data.sum)}`)
    out.push(`${this.name}_count${formatLabels(this.labelNames, s.values)} ${s.data.count}`)
  }
}

type AnyMetric = Counter | Gauge | Histogram

export class Registry {
  private readonly metrics = new Map<string, AnyMetric>()
  private readonly collectors = new Set<() => void>()

  /** Returns the counter of that name, creating it on first use; several users may share one. */
  counter(opts: MetricOptions): Counter {
    return this.getOrCreate(opts, 'counter', () => new Counter(opts)) as Counter
  }

  gauge(opts: MetricOptions): Gauge {
    return this.getOrCreate(opts, 'gauge', () => new Gauge(opts)) as Gauge
  }

  histogram(opts: HistogramOptions): Histogram {
    const h = this.getOrCreate(opts, 'histogram', () => new Histogram(opts)) as Histogram
    if (opts.buckets && JSON.stringify(opts.buckets) !== JSON.stringify(h.buckets)) {
      throw new Error(`metric ${opts.name} is already registered with different buckets`)
    }
    return h
  }

  /** Runs fn before each render, to refresh values computed on demand; returns an unregister function. */
  onCollect(fn: () => void): () => void {
    this.collectors.add(fn)
    return () => {
      this.collectors.delete(fn)
    }
  }

  get(name: string): AnyMetric | undefined {
    return this.metrics.get(name)
  }

  render(): string {
    for (const fn of this.collectors) {
      try {
        fn()
      } catch {
        // One broken collector must not fail the whole scrape; its metrics keep their last values.
      }
    }
    const out: string[] = []
    for (const m of this.metrics.values()) m.render(out)
    return out.length ? out.join('\n') + '\n' : ''
  }

  private getOrCreate(opts: MetricOptions, type: MetricType, make: () => AnyMetric): AnyMetric {
    const existing = this.metrics.get(opts.name)
    if (!existing) {
      const m = make()
      this.metrics.set(m.name, m)
      return m
    }
    const labels = opts.labelNames ?? []
    if (existing.type !== type || existing.labelNames.length !== labels.length || existing.labelNames.some((l, i) => l !== labels[i])) {
      throw new Error(
        `metric ${opts.name} is already registered as a ${existing.type} with labels {${existing.labelNames.join(',')}}; ` +
          `asked for a ${type} with labels {${labels.join(',')}}`,
      )
    }
    return existing
  }
}
