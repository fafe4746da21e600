// Records core v1 Events about the objects template-sync manages, so users see
// what happened with `kubectl describe` / `kubectl get events`.
//  - Repeats of the same event (same object, type, reason and message) within
//    the aggregation window bump count and lastTimestamp on the existing Event
//    instead of creating a new one, as client-go's correlator does; a reconcile
//    loop that keeps failing then yields one Event with a growing count.
//  - A per-object limit keeps one misbehaving object from flooding the API.
//  - Recording never throws or rejects: an Event is a courtesy, and failing to
//    write one must not fail a reconcile. Failures go to the injected log.
// Writes for one aggregation key are serialized so concurrent repeats cannot
// create duplicates.

import { randomBytes } from 'node:crypto'
import type { KubeClient } from './client.ts'
import { CONTENT_MERGE } from './client.ts'
import { KubeApiError } from './errors.ts'
import { type LogFn, noLog } from '../telemetry/log.ts'

export type EventType = 'Normal' | 'Warning'

/** The object an Event is about. */
export interface InvolvedObject {
  readonly apiVersion: string
  readonly kind: string
  readonly name: string
  /** Absent for cluster-scoped objects, whose Events go to the `default` namespace. */
  readonly namespace?: string
  readonly uid?: string
  readonly resourceVersion?: string
  readonly fieldPath?: string
}

export interface EventRecorderOptions {
  readonly client: Pick<KubeClient, 'request'>
  /** Identifies this replica (e.g. the pod name); at most 128 characters are kept. */
  readonly reportingInstance: string
  /** Defaults to `template-sync`. */
  readonly reportingController?: string
  /** source.component; defaults to reportingController. */
  readonly component?: string
  /** source.host, e.g. the node name. */
  readonly host?: string
  readonly log?: LogFn
  /** Milliseconds since the epoch. */
  readonly now?: () => number
  readonly aggregationWindowMs?: number
  readonly perObjectLimit?: { readonly events: number; readonly windowMs: number }
  /** Upper bound on remembered aggregation keys and rate-limited objects. */
  readonly cacheSize?: number
}

export const EVENT_MESSAGE_LIMIT = 1024
const REASON_LIMIT = 128
const INSTANCE_LIMIT = 128

export const defaultEventOptions = Object.freeze({
  reportingController: 'template-sync',
  aggregationWindowMs: 10 * 60_000,
  perObjectLimit: Object.freeze({ events: 25, windowMs: 60_000 }),
  cacheSize: 4096,
})

export interface EventStats {
  created: number
  aggregated: number
  /** Dropped by the per-object limit. */
  limited: number
  failed: number
}

interface Aggregate {
  readonly namespace: string
  name: string
  count: number
  lastMs: number
}

/** core v1 Time: RFC 3339, whole seconds, UTC. */
export function formatTime(epochMs: number): string {
  return new Date(Math.floor(epochMs / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/**
 * Cuts s so its UTF-8 form fits in maxBytes, the unit of the API server's
 * limits (and so also at most maxBytes characters), marking the cut with
 * '...' and never splitting a character.
 */
export function truncateUtf8(s: string, maxBytes: number): string {
  if (Buffer.byteLength(s, 'utf8') <= maxBytes) return s
  const ellipsis = '...'
  let budget = maxBytes - Buffer.byteLength(ellipsis, 'utf8')
  let out = ''
  for (const ch of s) {
    const n = Buffer.byteLength(ch, 'utf8')
    if (n > budget) break
    out += ch
    budget -= n
  }
  return out + ellipsis
}

/** Event names must be DNS subdomains; object names (e.g. `system:foo`) need not be. */
export function eventNamePrefix(objectName: string): string {
  const cleaned = objectName
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .slice(0, 200)
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '')
  return cleaned || 'object'
}

const objectKeyOf = (o: InvolvedObject): string => o.uid || `${o.apiVersion}/${o.kind}/${o.namespace ?? ''}/${o.name}`

/** Map used as an LRU: re-inserting moves a key to the end; the oldest key is evicted first. */
function touch<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key)
  map.set(key, value)
  while (map.size > max) {
    const oldest = map.keys().next()
    if (oldest.done) break
    map.delete(oldest.value)
  }
}

export class EventRecorder {
  readonly stats: EventStats = { created: 0, aggregated: 0, limited: 0, failed: 0 }
  private readonly client: Pick<KubeClient, 'request'>
  private readonly controller: string
  private readonly instance: string
  private readonly component: string
  private readonly host: string | undefined
  private readonly log: LogFn
  private readonly now: () => number
  private readonly windowMs: number
  private readonly limit: { readonly events: number; readonly windowMs: number }
  private readonly cacheSize: number
  private readonly aggregates = new Map<string, Aggregate>()
  /** Recent write times per object, for the per-object limit. */
  private readonly recent = new Map<string, number[]>()
  /** Tail of the write chain per aggregation key. */
  private readonly chains = new Map<string, Promise<void>>()
  private readonly inFlight = new Set<Promise<void>>()

  constructor(opts: EventRecorderOptions) {
    this.client = opts.client
    this.controller = opts.reportingController ?? defaultEventOptions.reportingController
    this.instance = opts.reportingInstance.slice(0, INSTANCE_LIMIT)
    this.component = opts.component ?? this.controller
    this.host = opts.host
    this.log = opts.log ?? noLog
    this.now = opts.now ?? Date.now
    this.windowMs = opts.aggregationWindowMs ?? defaultEventOptions.aggregationWindowMs
    this.limit = opts.perObjectLimit ?? defaultEventOptions.perObjectLimit
    this.cacheSize = opts.cacheSize ?? defaultEventOptions.cacheSize
  }

  /**
   * Records an Event about obj. Never throws; the promise (which never
   * rejects) settles when the write is done, for callers that want to wait.
   */
  record(obj: InvolvedObject, type: EventType, reason: string, message: string): Promise<void> {
    try {
      return this.enqueue(obj, type, reason, message)
    } catch (err) {
      this.fail('could not record an event', obj, reason, err)
      return Promise.resolve()
    }
  }

  /** Resolves when every write started so far has finished (for shutdown and tests). */
  async flush(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight])
  }

  private enqueue(obj: InvolvedObject, type: EventType, rawReason: string, rawMessage: string): Promise<void> {
    const reason = rawReason.slice(0, REASON_LIMIT)
    const message = truncateUtf8(rawMessage, EVENT_MESSAGE_LIMIT)
    const objectKey = objectKeyOf(obj)
    if (!this.allow(objectKey)) {
      this.stats.limited++
      this.log('debug', 'event dropped by the per-object rate limit', { object: `${obj.kind}/${obj.namespace ?? ''}/${obj.name}`, reason })
      return Promise.resolve()
    }
    const key = JSON.stringify([objectKey, type, reason, message])
    const prev = this.chains.get(key) ?? Promise.resolve()
    const next = prev
      .then(() => this.write(key, obj, type, reason, message))
      .catch((err: unknown) => this.fail('could not record an event', obj, reason, err))
    this.chains.set(key, next)
    this.inFlight.add(next)
    void next.finally(() => {
      this.inFlight.delete(next)
      if (this.chains.get(key) === next) this.chains.delete(key)
    })
    return next
  }

  /** Sliding window: at most limit.events writes per object within limit.windowMs. */
  private allow(objectKey: string): boolean {
    const now = this.now()
    const times = (this.recent.get(objectKey) ?? []).filter((t) => now - t < this.limit.windowMs)
    const ok = times.length < this.limit.events
    if (ok) times.push(now)
    touch(this.recent, objectKey, times, this.cacheSize)
    return ok
  }

  private fail(msg: string, obj: InvolvedObject, reason: string, err: unknown): void {
    this.stats.failed++
    try {
      this.log('warn', msg, { object: `${obj.kind}/${obj.namespace ?? ''}/${obj.name}`, reason, err })
    } catch {
      // Nothing left to report to.
    }
  }

  private async write(key: string, obj: InvolvedObject, type: EventType, reason: string, message: string): Promise<void> {
    const now = this.now()
    const agg = this.aggregates.get(key)
    if (agg && now - agg.lastMs <= this.windowMs) {
      try {
        await this.client.request(
          'PATCH',
          `/api/v1/namespaces/${encodeURIComponent(agg.namespace)}/events/${encodeURIComponent(agg.name)}`,
          {
            body: { count: agg.count + 1, lastTimestamp: formatTime(now) },
            contentType: CONTENT_MERGE,
          },
        )
        agg.count++
        agg.lastMs = now
        touch(this.aggregates, key, agg, this.cacheSize)
        this.stats.aggregated++
        return
      } catch (err) {
        // The Event may have expired (the API server keeps Events for about an hour): start a new one.
        if (!(err instanceof KubeApiError && err.code === 404)) throw err
        this.aggregates.delete(key)
      }
    }
    const namespace = obj.namespace || 'default'
    const name = `${eventNamePrefix(obj.name)}.${Math.floor(now).toString(16)}${randomBytes(4).toString('hex')}`
    const stamp = formatTime(now)
    const involvedObject: Record<string, string> = { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.name }
    if (obj.namespace) involvedObject.namespace = obj.namespace
    if (obj.uid) involvedObject.uid = obj.uid
    if (obj.resourceVersion) involvedObject.resourceVersion = obj.resourceVersion
    if (obj.fieldPath) involvedObject.fieldPath = obj.fieldPath
    const body = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject,
      reason,
      message,
      type,
      count: 1,
      firstTimestamp: stamp,
      lastTimestamp: stamp,
      source: this.host ? { component: this.component, host: this.host } : { component: this.component },
      reportingComponent: this.controller,
      reportingInstance: this.instance,
    }
    await this.client.request('POST', `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`, { body })
    touch(this.aggregates, key, { namespace, name, count: 1, lastMs: now }, this.cacheSize)
    this.stats.created++
  }
}
