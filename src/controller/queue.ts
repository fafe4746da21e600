// A keyed work queue with the semantics of client-go's workqueue, which the
// reconcilers rely on for correctness, not only for speed:
//  - a key is queued at most once however often it is added (events coalesce);
//  - a key is never handed to two workers at once; a key added while it is
//    being processed is held back and queued again when done() is called, so
//    the change that arrived mid-reconcile is not lost;
//  - delayed adds (addAfter) and rate-limited adds (addRateLimited) feed the
//    same de-duplicated queue.
// Rate limiting takes the larger of a per-key exponential backoff and an
// overall token bucket, so one failing key backs off on its own while a storm
// of failures cannot flood the API server.
// Keys carry a priority, as in controller-runtime's priority queue: a ready key
// of a higher priority is handed out first, keys of one priority in the order
// they became ready; a key keeps the highest priority it was added with until
// a worker takes it, and a raise moves it to the back of its new priority. So a
// drift correction does not wait behind thousands of re-renders that one
// Template edit queued (docs/work-queue.md).
// Difference from client-go: after shutDown(), get() returns undefined even if
// keys are still queued. Reconciles are level-triggered and a new leader or a
// restart resyncs every key, so abandoning queued keys loses nothing, while
// handing out more work after leadership was lost would.

import {
  type Counter,
  DEFAULT_BUCKETS,
  type Gauge,
  type Histogram,
  type HistogramSnapshot,
  readHistogram,
  MetricsRegistry,
  readValue,
} from '../telemetry/metrics.ts'

/** The priorities the reconciler uses; higher runs first. Any integer is accepted. */
export const PRIORITY = Object.freeze({
  /** Live drift of a rendered object: a correction. */
  drift: 10,
  /** A change of the instance itself, and anything not classified. */
  normal: 0,
  /** Bulk work: a Template, Namespace or parameter-source change fanning out, initial lists, resyncs. */
  low: -100,
})

/** Time and timers, injectable so tests can drive the queue deterministically. */
export interface QueueClock {
  /** Milliseconds since the epoch. */
  now(): number
  /** Schedules fn after ms; the timer must not keep the process alive. */
  setTimer(fn: () => void, ms: number): unknown
  clearTimer(handle: unknown): void
}

export const systemQueueClock: QueueClock = Object.freeze({
  now: () => Date.now(),
  setTimer: (fn: () => void, ms: number): unknown => setTimeout(fn, ms).unref(),
  clearTimer: (handle: unknown): void => clearTimeout(handle as ReturnType<typeof setTimeout>),
})

export interface BackoffOptions {
  /** Delay after the first failure; doubles on each further failure. */
  readonly baseMs: number
  readonly maxMs: number
}

export interface BucketOptions {
  /** Sustained rate of rate-limited adds per second. */
  readonly qps: number
  readonly burst: number
}

export interface WorkQueueOptions {
  /** Value of the `name` label on the queue's metrics. */
  readonly name?: string
  readonly clock?: QueueClock
  readonly backoff?: Partial<BackoffOptions>
  readonly bucket?: Partial<BucketOptions>
  /** Registry to expose the queue's metrics in; a private one is used when absent. */
  readonly registry?: MetricsRegistry
}

export const defaultBackoff: BackoffOptions = Object.freeze({ baseMs: 50, maxMs: 60_000 })
export const defaultBucket: BucketOptions = Object.freeze({ qps: 20, burst: 200 })

/** Per-key exponential backoff: baseMs * 2^(failures so far), capped at maxMs. */
export class KeyBackoff<K> {
  private readonly failures = new Map<K, number>()
  private readonly opts: BackoffOptions

  constructor(opts: BackoffOptions) {
    if (!(opts.baseMs > 0) || !(opts.maxMs >= opts.baseMs))
      throw new Error(`backoff: need 0 < baseMs <= maxMs, got ${opts.baseMs} and ${opts.maxMs}`)
    this.opts = opts
  }

  /** Records one more failure of key and returns how long to wait before retrying it. */
  when(key: K): number {
    const n = this.failures.get(key) ?? 0
    this.failures.set(key, n + 1)
    // 2^n overflows to Infinity for large n; min() keeps the cap exact either way.
    return Math.min(this.opts.maxMs, this.opts.baseMs * 2 ** n)
  }

  numRequeues(key: K): number {
    return this.failures.get(key) ?? 0
  }

  forget(key: K): void {
    this.failures.delete(key)
  }
}

/**
 * Token bucket over all keys. A reservation always succeeds and returns the
 * wait until its token exists; tokens may go negative, which queues later
 * callers behind earlier ones.
 */
export class TokenBucket {
  private readonly opts: BucketOptions
  private tokens: number
  private last: number

  constructor(opts: BucketOptions, now: number) {
    if (!(opts.qps > 0) || !(opts.burst >= 1))
      throw new Error(`token bucket: need qps > 0 and burst >= 1, got ${opts.qps} and ${opts.burst}`)
    this.opts = opts
    this.tokens = opts.burst
    this.last = now
  }

  reserve(now: number): number {
    if (now > this.last) {
      this.tokens = Math.min(this.opts.burst, this.tokens + ((now - this.last) * this.opts.qps) / 1000)
      this.last = now
    }
    this.tokens -= 1
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens * 1000) / this.opts.qps)
  }
}

interface Waiting<K> {
  readonly key: K
  readonly readyAt: number
  readonly seq: number
  /** Raised in place by later delayed adds that do not move readyAt (the heap orders by readyAt only). */
  priority: number
}

/** A key that needs processing: queued, or re-added while in flight. */
interface Dirty {
  priority: number
  /** Time of the add that marked it (queue latency is measured from here). */
  readonly addedAt: number
  /** Sequence number of its live ready entry; -1 while in flight (it has none). */
  seq: number
}

interface ReadyEntry<K> {
  readonly key: K
  readonly seq: number
}

/** FIFO of ready entries of one priority; `head` avoids O(n) shifts. */
class Fifo<K> {
  private items: ReadyEntry<K>[] = []
  private head = 0

  get empty(): boolean {
    return this.head >= this.items.length
  }

  push(e: ReadyEntry<K>): void {
    this.items.push(e)
  }

  shift(): ReadyEntry<K> | undefined {
    if (this.head >= this.items.length) return undefined
    const e = this.items[this.head] as ReadyEntry<K>
    this.head++
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head)
      this.head = 0
    }
    return e
  }
}

/** Binary min-heap on (readyAt, seq): earliest first, insertion order among equals. */
class DelayHeap<K> {
  private readonly items: Waiting<K>[] = []

  get size(): number {
    return this.items.length
  }

  peek(): Waiting<K> | undefined {
    return this.items[0]
  }

  push(w: Waiting<K>): void {
    const a = this.items
    a.push(w)
    let i = a.length - 1
    while (i > 0) {
      const p = (i - 1) >> 1
      if (!this.less(a[i] as Waiting<K>, a[p] as Waiting<K>)) break
      ;[a[i], a[p]] = [a[p] as Waiting<K>, a[i] as Waiting<K>]
      i = p
    }
  }

  pop(): Waiting<K> | undefined {
    const a = this.items
    const top = a[0]
    const last = a.pop()
    if (a.length > 0 && last) {
      a[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < a.length && this.less(a[l] as Waiting<K>, a[m] as Waiting<K>)) m = l
        if (r < a.length && this.less(a[r] as Waiting<K>, a[m] as Waiting<K>)) m = r
        if (m === i) break
        ;[a[i], a[m]] = [a[m] as Waiting<K>, a[i] as Waiting<K>]
        i = m
      }
    }
    return top
  }

  clear(): void {
    this.items.length = 0
  }

  private less(x: Waiting<K>, y: Waiting<K>): boolean {
    return x.readyAt < y.readyAt || (x.readyAt === y.readyAt && x.seq < y.seq)
  }
}

/** Summary of a duration histogram, in milliseconds; bucket counts are cumulative. */
export interface DurationSummary {
  readonly count: number
  readonly sumMs: number
  readonly buckets: readonly { readonly leMs: number; readonly count: number }[]
}

export interface QueueMetrics {
  /** Keys waiting to be processed, including keys re-added while in flight. */
  readonly depth: number
  /** depth by priority (the priority as a decimal string); priorities seen once stay, at 0. */
  readonly depthByPriority: Readonly<Record<string, number>>
  readonly adds: number
  readonly retries: number
  /** Age of the oldest in-flight key. */
  readonly longestRunningMs: number
  /** Sum of the ages of all in-flight keys. */
  readonly unfinishedWorkMs: number
  /** Time from the add that queued a key to the get that handed it out. */
  readonly latencyMs: DurationSummary
  /** latencyMs by the priority the key was handed out with. */
  readonly latencyByPriorityMs: Readonly<Record<string, DurationSummary>>
  /** Time from get to done. */
  readonly workDurationMs: DurationSummary
}

const toMs = (s: HistogramSnapshot): DurationSummary => ({
  count: s.count,
  // Rounded to microseconds: finer digits are binary noise from the seconds-to-milliseconds conversion.
  sumMs: Math.round(s.sum * 1e6) / 1e3,
  buckets: s.buckets.map((b) => ({ leMs: Math.round(b.le * 1e6) / 1e3, count: b.count })),
})

interface QueueInstruments {
  readonly depth: Gauge<'name'>
  readonly depthByPriority: Gauge<'name' | 'priority'>
  readonly latencyByPriority: Histogram<'name' | 'priority'>
  readonly adds: Counter<'name'>
  readonly retries: Counter<'name'>
  readonly latency: Histogram<'name'>
  readonly work: Histogram<'name'>
  readonly longest: Gauge<'name'>
  readonly unfinished: Gauge<'name'>
}

function instruments(reg: MetricsRegistry): QueueInstruments {
  const labelNames = ['name'] as const
  return {
    depth: reg.gauge({ name: 'workqueue_depth', help: 'Keys waiting in the work queue.', labelNames }),
    depthByPriority: reg.gauge({
      name: 'workqueue_depth_by_priority',
      help: 'Keys waiting in the work queue, by the priority they will be handed out with.',
      labelNames: ['name', 'priority'],
    }),
    latencyByPriority: reg.histogram({
      name: 'workqueue_queue_duration_by_priority_seconds',
      help: 'Time a key waited in the queue before a worker took it, by the priority it was taken with.',
      labelNames: ['name', 'priority'],
      buckets: DEFAULT_BUCKETS,
    }),
    adds: reg.counter({ name: 'workqueue_adds_total', help: 'Adds that queued a key (de-duplicated adds are not counted).', labelNames }),
    retries: reg.counter({ name: 'workqueue_retries_total', help: 'Rate-limited re-adds after a failure.', labelNames }),
    latency: reg.histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'Time a key waited in the queue before a worker took it.',
      labelNames,
      buckets: DEFAULT_BUCKETS,
    }),
    work: reg.histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'Time a worker spent on a key.',
      labelNames,
      buckets: DEFAULT_BUCKETS,
    }),
    longest: reg.gauge({
      name: 'workqueue_longest_running_processor_seconds',
      help: 'Age of the oldest key still being processed.',
      labelNames,
    }),
    unfinished: reg.gauge({
      name: 'workqueue_unfinished_work_seconds',
      help: 'Sum of the ages of keys still being processed.',
      labelNames,
    }),
  }
}

/** A key handed to a worker, with the priority it was queued with (for requeues at the same priority). */
export interface QueueItem<K> {
  readonly key: K
  readonly priority: number
}

export class WorkQueue<K extends string> {
  readonly name: string
  private readonly clock: QueueClock
  private readonly backoff: KeyBackoff<K>
  private readonly bucket: TokenBucket
  private readonly m: QueueInstruments
  private readonly labels: { name: string }
  private readonly unregisterCollector: () => void

  /** Ready entries per priority; entries whose seq differs from their key's Dirty.seq are stale. */
  private readonly levels = new Map<number, Fifo<K>>()
  /** The priorities in `levels`, highest first. */
  private order: number[] = []
  /** Live ready entries (dirty keys not in flight). */
  private ready = 0
  private readonly dirty = new Map<K, Dirty>()
  private readonly dirtyByPriority = new Map<number, number>()
  /** Priorities keys have been handed out with (their latency series exist). */
  private readonly latencyPriorities = new Set<number>()
  /** Keys handed to a worker and not yet done(); value: time of get(). */
  private readonly processing = new Map<K, number>()
  private readonly getWaiters: ((item: QueueItem<K> | undefined) => void)[] = []
  private readonly drainWaiters: (() => void)[] = []

  private readonly heap = new DelayHeap<K>()
  /** Live delayed entry per key; heap entries whose seq differs are stale. */
  private readonly waiting = new Map<K, Waiting<K>>()
  private seq = 0
  private timer: unknown
  private timerDue = Infinity

  private shuttingDown = false

  constructor(opts: WorkQueueOptions = {}) {
    this.name = opts.name ?? 'default'
    this.clock = opts.clock ?? systemQueueClock
    this.backoff = new KeyBackoff<K>({ ...defaultBackoff, ...opts.backoff })
    this.bucket = new TokenBucket({ ...defaultBucket, ...opts.bucket }, this.clock.now())
    const reg = opts.registry ?? new MetricsRegistry()
    this.m = instruments(reg)
    this.labels = { name: this.name }
    this.m.depth.set(this.labels, 0)
    // Counters exist from the start, at 0, so a rate over them exists before the first add or retry.
    this.m.adds.inc(this.labels, 0)
    this.m.retries.inc(this.labels, 0)
    this.unregisterCollector = reg.onCollect(() => this.updateInFlightGauges())
  }

  /**
   * Marks key as needing work, at `priority` (default PRIORITY.normal). A key
   * already waiting keeps its place unless the new priority is higher: then it
   * moves to the back of that priority. No-op once the queue is shut down.
   */
  add(key: K, priority: number = PRIORITY.normal): void {
    if (this.shuttingDown) return
    checkPriority(priority)
    const d = this.dirty.get(key)
    if (d) {
      if (priority <= d.priority) return
      this.countDirty(d.priority, -1)
      this.countDirty(priority, 1)
      d.priority = priority
      // In flight: done() queues it at the raised priority.
      if (d.seq >= 0) {
        this.ready--
        this.pushReady(key, d)
        this.handOut()
      }
      return
    }
    const nd: Dirty = { priority, addedAt: this.clock.now(), seq: -1 }
    this.dirty.set(key, nd)
    this.countDirty(priority, 1)
    this.m.adds.inc(this.labels)
    this.m.depth.set(this.labels, this.dirty.size)
    // An in-flight key is queued again by done(); queuing it now would let a
    // second worker take it concurrently.
    if (this.processing.has(key)) return
    this.pushReady(key, nd)
    this.handOut()
  }

  /**
   * Adds key at `priority` once ms have passed. A key already waiting keeps the
   * earlier of the two times and the higher of the two priorities.
   */
  addAfter(key: K, ms: number, priority: number = PRIORITY.normal): void {
    if (this.shuttingDown) return
    checkPriority(priority)
    if (!(ms > 0)) return this.add(key, priority)
    const readyAt = this.clock.now() + ms
    const current = this.waiting.get(key)
    if (current && current.readyAt <= readyAt) {
      current.priority = Math.max(current.priority, priority)
      return
    }
    const w: Waiting<K> = { key, readyAt, seq: this.seq++, priority: Math.max(current?.priority ?? priority, priority) }
    this.waiting.set(key, w)
    this.heap.push(w)
    // Superseded entries stay in the heap until popped; rebuild if they pile up.
    if (this.heap.size > 2 * this.waiting.size + 64) this.compactHeap()
    this.schedule()
  }

  /** Adds key at `priority` after the larger of its own backoff and the overall rate limit. */
  addRateLimited(key: K, priority: number = PRIORITY.normal): void {
    if (this.shuttingDown) return
    this.m.retries.inc(this.labels)
    const now = this.clock.now()
    const perKey = this.backoff.when(key)
    const overall = this.bucket.reserve(now)
    this.addAfter(key, Math.max(perKey, overall), priority)
  }

  /** Clears key's failure history, so its next failure starts again at the base delay. */
  forget(key: K): void {
    this.backoff.forget(key)
  }

  /** Rate-limited adds since the last forget(key). */
  numRequeues(key: K): number {
    return this.backoff.numRequeues(key)
  }

  /**
   * Waits for a key and marks it as being processed; the caller must call
   * done(key) afterwards. Resolves to undefined once the queue is shut down.
   */
  async get(): Promise<K | undefined> {
    return (await this.getWithPriority())?.key
  }

  /** get(), with the priority the key was queued with. */
  getWithPriority(): Promise<QueueItem<K> | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined)
    const item = this.take()
    if (item !== undefined) return Promise.resolve(item)
    return new Promise((resolve) => this.getWaiters.push(resolve))
  }

  /** Ends processing of key; if it was added meanwhile, it is queued again. */
  done(key: K): void {
    const started = this.processing.get(key)
    if (started === undefined) return
    this.processing.delete(key)
    this.m.work.observe(this.labels, Math.max(0, this.clock.now() - started) / 1000)
    const d = this.dirty.get(key)
    if (d && !this.shuttingDown) {
      this.pushReady(key, d)
      this.handOut()
    }
    if (this.processing.size === 0) for (const w of this.drainWaiters.splice(0)) w()
  }

  /** Keys ready for a worker now (not counting delayed or in-flight keys). */
  len(): number {
    return this.ready
  }

  /** Keys currently handed to workers. */
  inFlight(): number {
    return this.processing.size
  }

  isShuttingDown(): boolean {
    return this.shuttingDown
  }

  /** Stops the queue: adds are ignored, queued and delayed keys are dropped, waiting get() calls resolve to undefined. */
  shutDown(): void {
    if (this.shuttingDown) return
    this.shuttingDown = true
    if (this.timer !== undefined) this.clock.clearTimer(this.timer)
    this.timer = undefined
    this.timerDue = Infinity
    this.heap.clear()
    this.waiting.clear()
    this.levels.clear()
    this.order = []
    this.ready = 0
    this.dirty.clear()
    for (const p of [...this.dirtyByPriority.keys()]) this.countDirty(p, -(this.dirtyByPriority.get(p) ?? 0))
    this.m.depth.set(this.labels, 0)
    for (const w of this.getWaiters.splice(0)) w(undefined)
    if (this.processing.size === 0) for (const w of this.drainWaiters.splice(0)) w()
  }

  /** shutDown(), then resolves once every in-flight key has been marked done. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown()
    if (this.processing.size === 0) return Promise.resolve()
    return new Promise((resolve) => this.drainWaiters.push(resolve))
  }

  /** Releases the queue's metric series from the registry (for a queue that is thrown away). */
  dispose(): void {
    this.shutDown()
    this.unregisterCollector()
    const { depthByPriority, latencyByPriority, ...plain } = this.m
    for (const m of Object.values(plain)) m.remove(this.labels)
    for (const p of this.dirtyByPriority.keys()) depthByPriority.remove(this.priorityLabels(p))
    for (const p of this.latencyPriorities) latencyByPriority.remove(this.priorityLabels(p))
  }

  async metrics(): Promise<QueueMetrics> {
    const { longestMs, unfinishedMs } = this.updateInFlightGauges()
    const depth = this.dirty.size
    const [adds, retries, latency, work] = await Promise.all([
      readValue(this.m.adds, this.labels),
      readValue(this.m.retries, this.labels),
      readHistogram(this.m.latency, this.labels),
      readHistogram(this.m.work, this.labels),
    ])
    const byPriority = await Promise.all(
      [...this.latencyPriorities].map(
        async (p) => [String(p), toMs(await readHistogram(this.m.latencyByPriority, this.priorityLabels(p)))] as const,
      ),
    )
    return {
      depth,
      depthByPriority: Object.fromEntries([...this.dirtyByPriority].map(([p, n]) => [String(p), n])),
      adds,
      retries,
      longestRunningMs: longestMs,
      unfinishedWorkMs: unfinishedMs,
      latencyMs: toMs(latency),
      latencyByPriorityMs: Object.fromEntries(byPriority),
      workDurationMs: toMs(work),
    }
  }

  private priorityLabels(p: number): { name: string; priority: string } {
    return { name: this.name, priority: String(p) }
  }

  private countDirty(priority: number, by: number): void {
    const n = (this.dirtyByPriority.get(priority) ?? 0) + by
    this.dirtyByPriority.set(priority, n)
    this.m.depthByPriority.set(this.priorityLabels(priority), n)
  }

  private updateInFlightGauges(): { longestMs: number; unfinishedMs: number } {
    const now = this.clock.now()
    let longestMs = 0
    let unfinishedMs = 0
    for (const started of this.processing.values()) {
      const age = Math.max(0, now - started)
      longestMs = Math.max(longestMs, age)
      unfinishedMs += age
    }
    this.m.longest.set(this.labels, longestMs / 1000)
    this.m.unfinished.set(this.labels, unfinishedMs / 1000)
    return { longestMs, unfinishedMs }
  }

  /** Gives d a fresh ready entry at the back of its priority (any older entry of the key turns stale). */
  private pushReady(key: K, d: Dirty): void {
    d.seq = this.seq++
    let fifo = this.levels.get(d.priority)
    if (fifo === undefined) {
      fifo = new Fifo<K>()
      this.levels.set(d.priority, fifo)
      this.order.push(d.priority)
      this.order.sort((a, b) => b - a)
    }
    fifo.push({ key, seq: d.seq })
    this.ready++
  }

  /** Pops the next ready key (highest priority first) and moves it to processing. */
  private take(): QueueItem<K> | undefined {
    while (this.order.length > 0) {
      const priority = this.order[0] as number
      const fifo = this.levels.get(priority) as Fifo<K>
      const e = fifo.shift()
      if (e === undefined) {
        this.levels.delete(priority)
        this.order.shift()
        continue
      }
      const d = this.dirty.get(e.key)
      if (d === undefined || d.seq !== e.seq) continue
      const now = this.clock.now()
      this.ready--
      this.dirty.delete(e.key)
      this.countDirty(priority, -1)
      this.processing.set(e.key, now)
      this.m.depth.set(this.labels, this.dirty.size)
      const waited = Math.max(0, now - d.addedAt) / 1000
      this.m.latency.observe(this.labels, waited)
      this.latencyPriorities.add(priority)
      this.m.latencyByPriority.observe(this.priorityLabels(priority), waited)
      return { key: e.key, priority }
    }
    return undefined
  }

  private handOut(): void {
    while (this.getWaiters.length > 0) {
      const item = this.take()
      if (item === undefined) return
      ;(this.getWaiters.shift() as (item: QueueItem<K> | undefined) => void)(item)
    }
  }

  private compactHeap(): void {
    this.heap.clear()
    for (const w of this.waiting.values()) this.heap.push(w)
  }

  /** Drops superseded heap entries at the top, so the timer targets a live one. */
  private liveHead(): Waiting<K> | undefined {
    for (;;) {
      const top = this.heap.peek()
      if (!top || this.waiting.get(top.key) === top) return top
      this.heap.pop()
    }
  }

  private schedule(): void {
    const top = this.liveHead()
    if (!top) {
      if (this.timer !== undefined) this.clock.clearTimer(this.timer)
      this.timer = undefined
      this.timerDue = Infinity
      return
    }
    if (this.timer !== undefined && this.timerDue <= top.readyAt) return
    if (this.timer !== undefined) this.clock.clearTimer(this.timer)
    this.timerDue = top.readyAt
    this.timer = this.clock.setTimer(() => this.fire(), Math.max(0, top.readyAt - this.clock.now()))
  }

  private fire(): void {
    this.timer = undefined
    this.timerDue = Infinity
    if (this.shuttingDown) return
    const now = this.clock.now()
    for (;;) {
      const top = this.liveHead()
      if (!top || top.readyAt > now) break
      this.heap.pop()
      this.waiting.delete(top.key)
      this.add(top.key, top.priority)
    }
    this.schedule()
  }
}

function checkPriority(priority: number): void {
  if (!Number.isSafeInteger(priority)) throw new Error(`work queue: a priority must be an integer, got ${priority}`)
}
