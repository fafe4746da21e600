// How many body bytes may be held at once, across all requests being read.
// Parsing and judging run one request at a time (they are synchronous), so
// what piles up under load is bodies still arriving; this bounds them. A
// slice is kept for small bodies, so that a few large ones, however slowly
// they are sent, never keep ordinary reviews out.

export interface MemoryBudgetOptions {
  /** Bytes of request bodies held at once. */
  readonly capacity: number
  /** Bodies of at most this many bytes are small. */
  readonly smallBytes: number
  /** Part of the capacity that large bodies cannot take. */
  readonly reservedForSmall: number
}

export class MemoryBudget {
  readonly capacity: number
  readonly smallBytes: number
  readonly reservedForSmall: number
  #used = 0

  constructor(opts: MemoryBudgetOptions) {
    if (!(opts.capacity > 0) || opts.reservedForSmall < 0 || opts.reservedForSmall > opts.capacity) {
      throw new RangeError(`memory budget: capacity ${opts.capacity} must be positive and hold the small reserve ${opts.reservedForSmall}`)
    }
    this.capacity = opts.capacity
    this.smallBytes = opts.smallBytes
    this.reservedForSmall = opts.reservedForSmall
  }

  get used(): number {
    return this.#used
  }

  /** Takes `bytes` of a body that will be `total` bytes long (undefined: not known yet, treated as large). */
  tryReserve(bytes: number, total: number | undefined): boolean {
    const large = total === undefined || total > this.smallBytes
    const ceiling = large ? this.capacity - this.reservedForSmall : this.capacity
    if (this.#used + bytes > ceiling) return false
    this.#used += bytes
    return true
  }

  release(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes)
  }
}
