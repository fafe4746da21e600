// Bounded least-recently-used maps for downloaded archives and loaded
// charts. Each entry has a size (bytes it holds); the map evicts the least
// recently used entries while it is over its count or byte bound. An entry
// larger than the whole byte bound is not kept at all.

export interface CacheBounds {
  readonly maxEntries: number
  readonly maxBytes: number
}

export class LruCache<K, V> {
  readonly #bounds: CacheBounds
  readonly #entries = new Map<K, { readonly value: V; readonly size: number }>()
  #bytes = 0

  constructor(bounds: CacheBounds) {
    this.#bounds = bounds
  }

  get(key: K): V | undefined {
    const e = this.#entries.get(key)
    if (e === undefined) return undefined
    // Re-insert: Map order is recency order.
    this.#entries.delete(key)
    this.#entries.set(key, e)
    return e.value
  }

  set(key: K, value: V, size: number): void {
    const old = this.#entries.get(key)
    if (old !== undefined) {
      this.#entries.delete(key)
      this.#bytes -= old.size
    }
    if (size > this.#bounds.maxBytes) return
    this.#entries.set(key, { value, size })
    this.#bytes += size
    for (const [k, e] of this.#entries) {
      if (this.#entries.size <= this.#bounds.maxEntries && this.#bytes <= this.#bounds.maxBytes) break
      this.#entries.delete(k)
      this.#bytes -= e.size
    }
  }

  get size(): number {
    return this.#entries.size
  }

  get bytes(): number {
    return this.#bytes
  }
}
