// A list+watch cache with the recovery that a long-running operator needs and
// that the stock client-node informer lacks:
//  - relist on 410 Gone (as an HTTP status or a watch ERROR event);
//  - reconnect with exponential backoff and jitter after errors;
//  - a watchdog that aborts a watch that has been silent for too long
//    (half-open connections, idle timeouts), using bookmarks as heartbeats;
//  - deep-frozen cached objects, so no consumer can corrupt the cache.
// Handlers are synchronous and should only enqueue work.

import { EventEmitter } from 'node:events'
import type { KubeObject } from '../api/meta.ts'
import { ACCEPT_METADATA, ACCEPT_METADATA_LIST, type KubeClient, type WatchEvent } from './client.ts'
import { KubeApiError } from './errors.ts'
import { deepFreeze } from './freeze.ts'
import { type Indexers, ObjectStore, storeKey } from './store.ts'

export interface ReflectorOptions<T> {
  /** Collection path, e.g. /apis/templates.v2.stakater.com/v2alpha1/templates (all namespaces). */
  path: string
  labelSelector?: string
  fieldSelector?: string
  /** Applied to every object before it is cached (e.g. drop managedFields). */
  transform?: (obj: KubeObject) => T
  /** Indexes of the cache, by name (see ObjectStore); queried with byIndex(). */
  indexers?: Indexers<T>
  /** Server-side watch timeout range in seconds; a random value in it is used per watch. */
  watchTimeoutSeconds?: [number, number]
  /** Abort a watch that delivered nothing (not even a bookmark) for this long. */
  stallMs?: number
  /** Backoff bounds after errors. */
  minBackoffMs?: number
  maxBackoffMs?: number
  /** Page size of the initial list. */
  pageSize?: number
  /**
   * List and watch PartialObjectMetadata: the API server sends apiVersion,
   * kind and metadata only, for caches that never read spec or status.
   */
  metadataOnly?: boolean
  /** Parses each watch event line (default JSON.parse), e.g. to skip fields the cache never keeps. */
  parseWatchLine?: (line: string) => WatchEvent
  /** Called with a description of every recovery action (for logs and metrics). */
  onRecover?: (what: 'relist-gone' | 'reconnect' | 'stall' | 'error', detail: string) => void
  name?: string
}

export interface ReflectorEvents<T> {
  add: (obj: T) => void
  update: (obj: T, old: T) => void
  delete: (obj: T) => void
  synced: () => void
}

interface ListResponse {
  metadata?: { resourceVersion?: string; continue?: string }
  items?: KubeObject[]
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const timer = setTimeout(done, ms)
    function done(): void {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })

/** True when both are decimal resourceVersions and `a` is older than `b`; false when either is not. */
export function resourceVersionBefore(a: string | undefined, b: string | undefined): boolean {
  const decimal = /^[1-9][0-9]*$/
  if (a === undefined || b === undefined || !decimal.test(a) || !decimal.test(b)) return false
  return a.length !== b.length ? a.length < b.length : a < b
}

export class Reflector<T extends KubeObject = KubeObject> {
  private readonly client: KubeClient
  private readonly opts: Required<
    Omit<
      ReflectorOptions<T>,
      'labelSelector' | 'fieldSelector' | 'transform' | 'onRecover' | 'metadataOnly' | 'parseWatchLine' | 'indexers'
    >
  > &
    ReflectorOptions<T>
  private readonly store: ObjectStore<T>
  private readonly emitter = new EventEmitter()
  private readonly stopController = new AbortController()
  private currentWatch: AbortController | undefined
  private resourceVersion = ''
  private synced = false
  private running: Promise<void> | undefined
  private syncWaiters: { resolve: () => void; reject: (e: Error) => void }[] = []
  /** Time of the last event or bookmark received (for the watchdog and health). */
  lastActivity = 0
  /** Recoveries performed, by kind (exported as metrics). */
  readonly recoveries: Record<string, number> = { 'relist-gone': 0, reconnect: 0, stall: 0, error: 0 }
  /** The last error, cleared by a successful list. */
  lastError: Error | undefined

  constructor(client: KubeClient, opts: ReflectorOptions<T>) {
    this.client = client
    this.opts = {
      watchTimeoutSeconds: [240, 480],
      stallMs: 120_000,
      minBackoffMs: 250,
      maxBackoffMs: 30_000,
      pageSize: 500,
      name: opts.path,
      ...opts,
    }
    this.store = new ObjectStore<T>(opts.indexers)
    this.emitter.setMaxListeners(0)
  }

  on<E extends keyof ReflectorEvents<T>>(event: E, fn: ReflectorEvents<T>[E]): this {
    this.emitter.on(event, fn as (...a: unknown[]) => void)
    return this
  }

  get name(): string {
    return this.opts.name
  }

  hasSynced(): boolean {
    return this.synced
  }

  /** Resolves after the first complete list. */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve()
    if (this.stopController.signal.aborted) return Promise.reject(new Error(`${this.opts.name}: stopped before the first sync`))
    return new Promise((resolve, reject) => {
      const waiter = { resolve, reject }
      this.syncWaiters.push(waiter)
      signal?.addEventListener(
        'abort',
        () => {
          this.syncWaiters = this.syncWaiters.filter((w) => w !== waiter)
          reject(new Error(`${this.opts.name}: wait for the first sync aborted`))
        },
        { once: true },
      )
    })
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.store.get(namespace, name)
  }

  getByKey(key: string): T | undefined {
    return this.store.getByKey(key)
  }

  list(): T[] {
    return [...this.store.values()]
  }

  /** The cached objects of one namespace, without looking at the others. */
  listNamespace(namespace: string | undefined): T[] {
    return this.store.inNamespace(namespace)
  }

  /** The cached objects a declared index files under value. */
  byIndex(index: string, value: string): T[] {
    return this.store.byIndex(index, value)
  }

  size(): number {
    return this.store.size
  }

  /**
   * True when the cache has certainly not caught up with `resourceVersion`
   * yet: the newest version it listed or watched is older. Versions are
   * opaque by contract; where both are not decimal integers (as etcd's
   * revisions are) the answer is false, so a caller falls back to asking.
   */
  isBehind(resourceVersion: string | undefined): boolean {
    return resourceVersionBefore(this.resourceVersion, resourceVersion)
  }

  start(): this {
    this.running ??= this.run()
    return this
  }

  async stop(): Promise<void> {
    this.stopController.abort()
    for (const w of this.syncWaiters.splice(0)) w.reject(new Error(`${this.opts.name}: stopped before the first sync`))
    await this.running
  }

  /** Ends the current watch; the loop watches again from the last resource version. */
  restartWatch(): void {
    this.currentWatch?.abort()
  }

  private prepare(raw: KubeObject): T {
    const obj = this.opts.transform ? this.opts.transform(raw) : (raw as T)
    return deepFreeze(obj)
  }

  private emit<E extends keyof ReflectorEvents<T>>(event: E, ...args: Parameters<ReflectorEvents<T>[E]>): void {
    for (const l of this.emitter.listeners(event)) {
      try {
        ;(l as (...a: unknown[]) => void)(...args)
      } catch {
        // A handler's bug must not stop the cache.
      }
    }
  }

  private async relist(signal: AbortSignal): Promise<void> {
    const fresh = new Map<string, T>()
    let cont: string | undefined
    let rv = ''
    do {
      const page = await this.client.request<ListResponse>('GET', this.opts.path, {
        query: {
          limit: this.opts.pageSize,
          continue: cont,
          labelSelector: this.opts.labelSelector,
          fieldSelector: this.opts.fieldSelector,
        },
        signal,
        ...(this.opts.metadataOnly ? { accept: ACCEPT_METADATA_LIST } : {}),
      })
      for (const item of page.items ?? []) {
        const obj = this.prepare(item)
        fresh.set(storeKey(obj), obj)
      }
      cont = page.metadata?.continue || undefined
      rv = page.metadata?.resourceVersion ?? rv
    } while (cont)
    // Replace the store and tell handlers what changed, so a relist after a
    // gap delivers the missed adds, updates and deletes.
    for (const key of [...this.store.keys()]) {
      if (!fresh.has(key)) {
        const old = this.store.delete(key)
        if (old !== undefined) this.emit('delete', old)
      }
    }
    for (const obj of fresh.values()) {
      const old = this.store.put(obj)
      if (!old) this.emit('add', obj)
      else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) this.emit('update', obj, old)
    }
    this.resourceVersion = rv
    this.lastActivity = Date.now()
    this.lastError = undefined
    if (!this.synced) {
      this.synced = true
      for (const w of this.syncWaiters.splice(0)) w.resolve()
      this.emit('synced')
    }
  }

  private apply(ev: WatchEvent): 'ok' | 'gone' {
    this.lastActivity = Date.now()
    if (ev.type === 'ERROR') {
      const code = (ev.object as { code?: number }).code
      if (code === 410) return 'gone'
      throw new Error(`${this.opts.name}: watch error event: ${JSON.stringify(ev.object).slice(0, 300)}`)
    }
    const rv = (ev.object as KubeObject).metadata?.resourceVersion
    if (ev.type === 'BOOKMARK') {
      if (rv) this.resourceVersion = rv
      return 'ok'
    }
    const obj = this.prepare(ev.object as KubeObject)
    if (ev.type === 'DELETED') {
      const old = this.store.delete(storeKey(obj))
      this.emit('delete', old ?? obj)
    } else {
      const old = this.store.put(obj)
      if (old) this.emit('update', obj, old)
      else this.emit('add', obj)
    }
    if (rv) this.resourceVersion = rv
    return 'ok'
  }

  private async watchOnce(signal: AbortSignal): Promise<'ended' | 'gone' | 'stalled'> {
    const [lo, hi] = this.opts.watchTimeoutSeconds
    const timeoutSeconds = Math.floor(lo + Math.random() * (hi - lo))
    const ac = new AbortController()
    this.currentWatch = ac
    const onStop = (): void => ac.abort()
    signal.addEventListener('abort', onStop, { once: true })
    let gone = false
    let stalled = false
    this.lastActivity = Date.now()
    const watchdog = setInterval(
      () => {
        if (Date.now() - this.lastActivity > this.opts.stallMs) {
          stalled = true
          ac.abort()
        }
      },
      Math.min(5_000, this.opts.stallMs / 4),
    )
    try {
      await this.client.watch(
        this.opts.path,
        {
          resourceVersion: this.resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds,
          labelSelector: this.opts.labelSelector,
          fieldSelector: this.opts.fieldSelector,
        },
        (ev) => {
          if (gone) return
          if (this.apply(ev) === 'gone') {
            gone = true
            ac.abort()
          }
        },
        ac.signal,
        {
          ...(this.opts.metadataOnly ? { accept: ACCEPT_METADATA } : {}),
          ...(this.opts.parseWatchLine ? { parseLine: this.opts.parseWatchLine } : {}),
        },
      )
    } catch (e) {
      if (gone) return 'gone'
      if (stalled) return 'stalled'
      if (signal.aborted || ac.signal.aborted) return 'ended'
      if (e instanceof KubeApiError && e.code === 410) return 'gone'
      throw e
    } finally {
      clearInterval(watchdog)
      signal.removeEventListener('abort', onStop)
    }
    if (gone) return 'gone'
    if (stalled) return 'stalled'
    return 'ended'
  }

  private async run(): Promise<void> {
    const signal = this.stopController.signal
    let backoff = this.opts.minBackoffMs
    let needList = true
    while (!signal.aborted) {
      try {
        if (needList) {
          await this.relist(signal)
          needList = false
        }
        const startedAt = Date.now()
        const outcome = await this.watchOnce(signal)
        if (outcome === 'ended' && Date.now() - startedAt < 1000 && !signal.aborted) {
          // A server that closes watches at once must not turn this into a tight loop.
          await sleep(backoff * (0.5 + Math.random() * 0.5), signal)
          backoff = Math.min(backoff * 2, this.opts.maxBackoffMs)
          continue
        }
        backoff = this.opts.minBackoffMs
        if (outcome === 'gone') {
          this.recoveries['relist-gone'] = (this.recoveries['relist-gone'] ?? 0) + 1
          this.opts.onRecover?.('relist-gone', `${this.opts.name}: resource version too old, relisting`)
          needList = true
        } else if (outcome === 'stalled') {
          this.recoveries.stall = (this.recoveries.stall ?? 0) + 1
          this.opts.onRecover?.('stall', `${this.opts.name}: no event or bookmark for ${this.opts.stallMs} ms, relisting`)
          needList = true
        }
        // 'ended' is the normal server-side timeout: watch again from the last resourceVersion.
      } catch (e) {
        if (signal.aborted) break
        this.lastError = e as Error
        this.recoveries.error = (this.recoveries.error ?? 0) + 1
        this.opts.onRecover?.('error', `${this.opts.name}: ${(e as Error).message}; retrying in ${backoff} ms`)
        needList = true
        await sleep(backoff * (0.5 + Math.random() * 0.5), signal)
        backoff = Math.min(backoff * 2, this.opts.maxBackoffMs)
      }
    }
  }
}
