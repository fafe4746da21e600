// Reference-counted shared watches. Each key (e.g. a GVK, or a GVK in one
// namespace) has at most one Reflector, shared by every owner (an instance)
// that needs it. A watch starts when its first owner asks for it and stops when
// its last owner lets go. Entries are identity-checked on removal, so a stop
// that finishes late never removes a newer watch for the same key.

import type { KubeObject } from '../api/meta.ts'
import type { Reflector } from '../kube/reflector.ts'

export interface WatchState {
  key: string
  synced: boolean
  /** Message of the error the watch is currently retrying after, if any. */
  error?: string
  owners: number
}

export class WatchRegistry<T extends KubeObject = KubeObject> {
  private readonly factory: (key: string) => Reflector<T> | Promise<Reflector<T>>
  private readonly watches = new Map<string, Promise<Reflector<T>>>()
  private readonly settled = new Map<string, Reflector<T>>()
  private readonly failures = new Map<string, string>()
  private readonly ownersByKey = new Map<string, Set<string>>()
  private readonly keysByOwner = new Map<string, Set<string>>()

  constructor(factory: (key: string) => Reflector<T> | Promise<Reflector<T>>) {
    this.factory = factory
  }

  /** Makes `keys` exactly the set of watches `owner` holds, starting and stopping watches as needed. */
  setOwnerKeys(owner: string, keys: Iterable<string>): void {
    const next = new Set(keys)
    const prev = this.keysByOwner.get(owner) ?? new Set<string>()
    for (const k of next) {
      if (prev.has(k)) continue
      let owners = this.ownersByKey.get(k)
      if (!owners) {
        owners = new Set()
        this.ownersByKey.set(k, owners)
      }
      owners.add(owner)
      if (!this.watches.has(k)) this.startWatch(k)
    }
    for (const k of prev) {
      if (next.has(k)) continue
      const owners = this.ownersByKey.get(k)
      owners?.delete(owner)
      if (owners && owners.size === 0) {
        this.ownersByKey.delete(k)
        this.stopWatch(k)
      }
    }
    if (next.size === 0) this.keysByOwner.delete(owner)
    else this.keysByOwner.set(owner, next)
  }

  release(owner: string): void {
    this.setOwnerKeys(owner, [])
  }

  private startWatch(key: string): void {
    this.failures.delete(key)
    const p = Promise.resolve()
      .then(() => this.factory(key))
      .then((r) => {
        // The owners may have gone while the factory ran.
        if (this.watches.get(key) !== p) {
          void r.stop()
          return r
        }
        this.settled.set(key, r)
        r.start()
        return r
      })
    p.catch((e: unknown) => {
      if (this.watches.get(key) === p) {
        this.failures.set(key, (e as Error).message)
        this.watches.delete(key)
      }
    })
    this.watches.set(key, p)
  }

  private stopWatch(key: string): void {
    const p = this.watches.get(key)
    this.watches.delete(key)
    const r = this.settled.get(key)
    this.settled.delete(key)
    this.failures.delete(key)
    if (r) void r.stop()
    else
      p?.then(
        (x) => x.stop(),
        () => {},
      )
  }

  /** Retries keys whose watch could not even be created (e.g. unknown kind) for current owners. */
  retryFailed(): void {
    for (const key of [...this.failures.keys()]) {
      if (this.ownersByKey.has(key) && !this.watches.has(key)) this.startWatch(key)
    }
  }

  get(key: string): Reflector<T> | undefined {
    return this.settled.get(key)
  }

  state(key: string): WatchState {
    const owners = this.ownersByKey.get(key)?.size ?? 0
    const failure = this.failures.get(key)
    if (failure !== undefined) return { key, synced: false, error: failure, owners }
    const r = this.settled.get(key)
    if (!r) return { key, synced: false, owners }
    const state: WatchState = { key, synced: r.hasSynced() && r.lastError === undefined, owners }
    if (r.lastError) state.error = r.lastError.message
    return state
  }

  /**
   * Resolves once the watch of every key has synced, could not start, or
   * stopped, or once `timeoutMs` passed or `signal` aborted: a wait that never
   * rejects and never outlasts its bound (a watch that keeps failing retries
   * on its own and its state says so).
   */
  async waitForSync(keys: Iterable<string>, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const timeout = new AbortController()
    const timer = setTimeout(() => timeout.abort(), timeoutMs)
    const bound = signal ? AbortSignal.any([timeout.signal, signal]) : timeout.signal
    // Also when the bound had passed before a watch was asked (its waiter would never hear the abort).
    const ended = new Promise<void>((resolve) => {
      if (bound.aborted) resolve()
      else bound.addEventListener('abort', () => resolve(), { once: true })
    })
    try {
      const all = Promise.all(
        [...keys].map(async (k) => {
          const r = await this.watches.get(k)?.catch(() => undefined)
          await r?.waitForSync(bound).catch(() => {})
        }),
      )
      await Promise.race([all, ended])
    } finally {
      clearTimeout(timer)
      // Drops the waiters of watches that have not synced.
      timeout.abort()
    }
  }

  keys(): string[] {
    return [...this.ownersByKey.keys()]
  }

  ownersOf(key: string): string[] {
    return [...(this.ownersByKey.get(key) ?? [])]
  }

  async stopAll(): Promise<void> {
    const all = [...this.settled.values()]
    this.watches.clear()
    this.settled.clear()
    this.ownersByKey.clear()
    this.keysByOwner.clear()
    await Promise.all(all.map((r) => r.stop()))
  }
}
