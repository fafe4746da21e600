// How many body bytes may be held at once, across all requests being read.
// Parsing and judging run one request at a time (they are synchronous), so
// what piles up under load is bodies still arriving; this bounds them. A
// slice is kept for small bodies, so that a few large ones, however slowly
// they are sent, never keep ordinary reviews out. And a body that does not
// fit takes the share of bodies that arrive too slowly: the API server writes
// a request at once, so a body that has fallen behind a modest pace holds
// memory only to keep others out.

const KiB = 1024
const MiB = 1024 * KiB

/** The slowest a body holding part of the budget may arrive, once it is more than `graceBytes` behind. */
export interface Pace {
  readonly minBytesPerSecond: number
  readonly graceBytes: number
}

/**
 * 1 MiB/s after 64 KiB: a body that sends nothing is behind after 62 ms; a
 * review of 17 MiB (the largest measured) written at the pace of a 100 Mbit/s
 * link stays ten times ahead of it.
 */
export const DEFAULT_PACE: Pace = Object.freeze({ minBytesPerSecond: MiB, graceBytes: 64 * KiB })

export interface MemoryBudgetOptions {
  /** Bytes of request bodies held at once. */
  readonly capacity: number
  /** Bodies of at most this many bytes are small. */
  readonly smallBytes: number
  /** Part of the capacity that large bodies cannot take. */
  readonly reservedForSmall: number
  readonly pace?: Pace
}

/** A body being read, as the budget sees it. */
export interface BodyInFlight {
  /** When its reading began (ms on a monotonic clock). */
  readonly since: number
  readonly received: number
  /** Bytes of the budget it holds. */
  readonly reserved: number
  /** All of it has arrived: it only waits to be parsed. */
  readonly complete: boolean
  /** Stops reading it and gives its reservation back, before returning. */
  cut(): void
}

/** How many bytes a body is behind the pace (zero or less: on time). */
export function lagOf(b: Omit<BodyInFlight, 'cut'>, now: number, pace: Pace): number {
  if (b.complete) return 0
  return ((now - b.since) / 1000) * pace.minBytesPerSecond - pace.graceBytes - b.received
}

/**
 * The bodies to stop so that `shortfall` bytes come free: those behind the
 * pace, the furthest behind first, as few as will do. Undefined when all of
 * them together would not free enough: stopping them would not let the new
 * body in.
 */
export function bodiesToCut<B extends BodyInFlight>(bodies: Iterable<B>, shortfall: number, now: number, pace: Pace): B[] | undefined {
  const late = [...bodies]
    .map((b) => ({ b, lag: lagOf(b, now, pace) }))
    .filter((x) => x.lag > 0 && x.b.reserved > 0)
    .sort((x, y) => y.lag - x.lag)
  const out: B[] = []
  let freed = 0
  for (const { b } of late) {
    if (freed >= shortfall) break
    out.push(b)
    freed += b.reserved
  }
  return freed >= shortfall ? out : undefined
}

export class MemoryBudget {
  readonly capacity: number
  readonly smallBytes: number
  readonly reservedForSmall: number
  readonly pace: Pace
  #used = 0
  readonly #bodies = new Set<BodyInFlight>()

  constructor(opts: MemoryBudgetOptions) {
    if (!(opts.capacity > 0) || opts.reservedForSmall < 0 || opts.reservedForSmall > opts.capacity) {
      throw new RangeError(`memory budget: capacity ${opts.capacity} must be positive and hold the small reserve ${opts.reservedForSmall}`)
    }
    this.capacity = opts.capacity
    this.smallBytes = opts.smallBytes
    this.reservedForSmall = opts.reservedForSmall
    this.pace = opts.pace ?? DEFAULT_PACE
  }

  get used(): number {
    return this.#used
  }

  /**
   * Takes `bytes` of a body that will be `total` bytes long (undefined: not
   * known yet, treated as large). With `now`, a body that does not fit may
   * stop tracked bodies that are behind the pace (never `self`) to make room.
   */
  tryReserve(bytes: number, total: number | undefined, now?: number, self?: BodyInFlight): boolean {
    const large = total === undefined || total > this.smallBytes
    const ceiling = large ? this.capacity - this.reservedForSmall : this.capacity
    const shortfall = this.#used + bytes - ceiling
    if (shortfall > 0) {
      if (now === undefined) return false
      const others = [...this.#bodies].filter((b) => b !== self)
      const cut = bodiesToCut(others, shortfall, now, this.pace)
      if (cut === undefined) return false
      for (const b of cut) b.cut()
      if (this.#used + bytes > ceiling) return false
    }
    this.#used += bytes
    return true
  }

  release(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes)
  }

  /** Makes a body that holds a reservation one that may be stopped for room; returns the call that forgets it. */
  track(body: BodyInFlight): () => void {
    this.#bodies.add(body)
    return () => this.#bodies.delete(body)
  }
}
