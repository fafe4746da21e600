// Leader election on a coordination.k8s.io/v1 Lease, following client-go's
// leaderelection package, so that several reconciler replicas can run and
// exactly one of them works.
//  - Acquire when the Lease is absent, released (no holder) or expired.
//  - Expiry is judged from the local time at which this process last saw the
//    Lease record change, never by comparing the holder's renewTime with the
//    local clock: clocks of different nodes may disagree by more than a lease
//    duration, but the time since a record last changed can be measured here.
//  - Every write is a PUT with the resourceVersion that was read, so two
//    candidates cannot both win: the loser gets 409 Conflict.
//  - A leader renews every retryPeriod and gives up when no renewal has
//    succeeded for renewDeadline, which is shorter than the lease duration, so
//    it stops before anyone else may take over. It also gives up at once when
//    a read shows another holder.
//  - On a graceful stop the leader lets its work wind down and then clears
//    holderIdentity, so a successor takes over without waiting for expiry.
//  - Every Lease request goes on the client's leader-election lane, its own
//    connection pool: a renewal never queues behind reconcile requests, so
//    load alone does not cost the lease; an unreachable API server still does.

import { hostname } from 'node:os'
import { randomBytes } from 'node:crypto'
import type { KubeClient, RequestInit } from './client.ts'
import { KubeApiError } from './errors.ts'
import { type LogFn, type LogLevel, noLog } from '../telemetry/log.ts'

/** Time, injectable so tests can control it. */
export interface ElectionClock {
  /** Milliseconds since the epoch; fractions of a millisecond are kept in MicroTime values. */
  now(): number
  /** Resolves after ms, or early when signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>
}

export const systemElectionClock: ElectionClock = Object.freeze({
  now: () => Date.now(),
  sleep: (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve()
      const done = (): void => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', done)
        resolve()
      }
      const timer = setTimeout(done, Math.max(0, ms))
      signal?.addEventListener('abort', done, { once: true })
    }),
})

/** The spec fields of a Lease that election reads and writes. */
export interface LeaseSpec {
  holderIdentity?: string
  leaseDurationSeconds?: number
  acquireTime?: string
  renewTime?: string
  leaseTransitions?: number
  [field: string]: unknown
}

export interface Lease {
  apiVersion?: string
  kind?: string
  metadata: { name?: string; namespace?: string; resourceVersion?: string; [field: string]: unknown }
  spec?: LeaseSpec
}

export interface LeaderCallbacks {
  /** Called when this process becomes leader; signal aborts when leadership ends. */
  onStartedLeading(signal: AbortSignal): void | Promise<void>
  /** Called once after leadership ended (lost or released); not called if it never led. */
  onStoppedLeading?(): void
  /** Called whenever a different holder is observed, including this process. */
  onNewLeader?(identity: string): void
}

export interface LeaderElectorOptions {
  readonly client: Pick<KubeClient, 'request'>
  readonly namespace: string
  readonly name: string
  /** Defaults to the host name plus a random suffix, unique per process. */
  readonly identity?: string
  /** A whole number of seconds, stored in the Lease. */
  readonly leaseDurationMs?: number
  readonly renewDeadlineMs?: number
  readonly retryPeriodMs?: number
  /** Acquire attempts wait retryPeriod * (1 + random * jitter), spreading candidates apart. */
  readonly jitter?: number
  /** Longest wait for onStartedLeading's promise before releasing on a graceful stop; defaults to renewDeadline. */
  readonly releaseGraceMs?: number
  readonly callbacks: LeaderCallbacks
  readonly clock?: ElectionClock
  readonly log?: LogFn
  readonly random?: () => number
}

export const defaultElectionTiming = Object.freeze({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, jitter: 1.2 })

/** A Kubernetes MicroTime: RFC 3339 in UTC with exactly six fractional digits. */
export function formatMicroTime(epochMs: number): string {
  const whole = Math.floor(epochMs)
  const micros = Math.min(999, Math.max(0, Math.floor((epochMs - whole) * 1000)))
  const iso = new Date(whole).toISOString()
  return `${iso.slice(0, -1)}${String(micros).padStart(3, '0')}Z`
}

/** Host name plus a random suffix: two processes on one host (or a restarted pod) never share an identity. */
export function defaultIdentity(host: string = hostname()): string {
  return `${host}-${randomBytes(4).toString('hex')}`
}

/** The part of a record whose change proves the holder is alive. */
const recordKey = (s: LeaseSpec | undefined): string =>
  JSON.stringify([
    s?.holderIdentity ?? '',
    s?.renewTime ?? '',
    s?.acquireTime ?? '',
    s?.leaseTransitions ?? 0,
    s?.leaseDurationSeconds ?? 0,
  ])

/**
 * Whether a record observed unchanged since observedAt has expired at now.
 * A record without a holder is free at once.
 */
export function leaseExpired(spec: LeaseSpec | undefined, observedAt: number, now: number, fallbackDurationMs: number): boolean {
  if (!spec?.holderIdentity) return true
  const durationMs = spec.leaseDurationSeconds && spec.leaseDurationSeconds > 0 ? spec.leaseDurationSeconds * 1000 : fallbackDurationMs
  return observedAt + durationMs <= now
}

type Attempt = { kind: 'held' } | { kind: 'busy'; holder: string } | { kind: 'conflict' } | { kind: 'error'; error: unknown }

export class LeaderElector {
  readonly identity: string
  /** Running totals of this process's renewals while leading: held on, or failed to (metrics read them). */
  readonly renewals: { success: number; failure: number } = { success: 0, failure: 0 }
  private readonly client: Pick<KubeClient, 'request'>
  private readonly path: string
  private readonly leaseSeconds: number
  private readonly renewDeadlineMs: number
  private readonly retryPeriodMs: number
  private readonly jitter: number
  private readonly releaseGraceMs: number
  private readonly callbacks: LeaderCallbacks
  private readonly clock: ElectionClock
  private readonly log: LogFn
  private readonly random: () => number
  private readonly namespace: string
  private readonly name: string

  /** The last Lease read or written, for its resourceVersion. */
  private lease: Lease | undefined
  private observedKey = ''
  private observedAt = 0
  private reportedLeader = ''
  private leading = false
  private stopController: AbortController | undefined
  private running: Promise<void> | undefined

  constructor(opts: LeaderElectorOptions) {
    const leaseDurationMs = opts.leaseDurationMs ?? defaultElectionTiming.leaseDurationMs
    const renewDeadlineMs = opts.renewDeadlineMs ?? defaultElectionTiming.renewDeadlineMs
    const retryPeriodMs = opts.retryPeriodMs ?? defaultElectionTiming.retryPeriodMs
    if (!Number.isInteger(leaseDurationMs / 1000) || leaseDurationMs < 1000) {
      throw new Error(`lease ${opts.namespace}/${opts.name}: leaseDurationMs must be a whole number of seconds, got ${leaseDurationMs}`)
    }
    if (!(retryPeriodMs > 0 && retryPeriodMs < renewDeadlineMs && renewDeadlineMs < leaseDurationMs)) {
      throw new Error(
        `lease ${opts.namespace}/${opts.name}: need 0 < retryPeriod < renewDeadline < leaseDuration, got ${retryPeriodMs}, ${renewDeadlineMs}, ${leaseDurationMs} ms`,
      )
    }
    this.client = opts.client
    this.namespace = opts.namespace
    this.name = opts.name
    this.path = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(opts.namespace)}/leases/${encodeURIComponent(opts.name)}`
    this.identity = opts.identity ?? defaultIdentity()
    this.leaseSeconds = leaseDurationMs / 1000
    this.renewDeadlineMs = renewDeadlineMs
    this.retryPeriodMs = retryPeriodMs
    this.jitter = opts.jitter ?? defaultElectionTiming.jitter
    this.releaseGraceMs = opts.releaseGraceMs ?? renewDeadlineMs
    this.callbacks = opts.callbacks
    this.clock = opts.clock ?? systemElectionClock
    this.log = opts.log ?? noLog
    this.random = opts.random ?? Math.random
  }

  isLeader(): boolean {
    return this.leading
  }

  /** Holder of the Lease as last observed ('' when free or unknown). */
  observedLeader(): string {
    return this.reportedLeader
  }

  /** spec.leaseTransitions of the Lease as last read or written; undefined before the first read. */
  observedTransitions(): number | undefined {
    return this.lease?.spec?.leaseTransitions
  }

  /**
   * Campaigns until elected, leads until leadership is lost or the signal
   * aborts (or stop() is called), then resolves. One term per call: after a
   * loss the caller decides whether to campaign again or to exit.
   */
  async run(signal?: AbortSignal): Promise<void> {
    if (this.running) throw new Error(`lease ${this.namespace}/${this.name}: elector ${this.identity} is already running`)
    const stop = new AbortController()
    this.stopController = stop
    const onAbort = (): void => stop.abort()
    if (signal?.aborted) stop.abort()
    else signal?.addEventListener('abort', onAbort, { once: true })
    this.running = this.term(stop.signal)
    try {
      await this.running
    } finally {
      signal?.removeEventListener('abort', onAbort)
      this.running = undefined
      this.stopController = undefined
    }
  }

  /** Graceful stop: ends the current term, releasing the Lease if held; resolves when done. */
  async stop(): Promise<void> {
    this.stopController?.abort()
    await this.running
  }

  private safe(what: string, fn: () => void): void {
    try {
      fn()
    } catch (err) {
      this.log('error', `leader election callback ${what} threw`, { lease: `${this.namespace}/${this.name}`, err })
    }
  }

  private async term(stop: AbortSignal): Promise<void> {
    const lease = `${this.namespace}/${this.name}`
    // Campaign.
    for (;;) {
      if (stop.aborted) return
      const r = await this.tryAcquireOrRenew(this.clock.now() + this.renewDeadlineMs, stop)
      if (r.kind === 'held') break
      if (r.kind === 'error' && !stop.aborted)
        this.log('warn', 'could not read or write the leader election lease', { lease, identity: this.identity, err: r.error })
      await this.clock.sleep(this.retryPeriodMs * (1 + this.random() * this.jitter), stop)
    }
    if (stop.aborted) {
      // Stopped while the winning write was in flight: hand the Lease back without starting work.
      await this.release()
      return
    }

    // Lead.
    this.leading = true
    this.log('info', 'became leader', { lease, identity: this.identity })
    const lead = new AbortController()
    let work: Promise<void> = Promise.resolve()
    try {
      work = Promise.resolve(this.callbacks.onStartedLeading(lead.signal)).catch((err: unknown) => {
        this.log('error', 'leader work failed', { lease, err })
      })
    } catch (err) {
      this.log('error', 'leader election callback onStartedLeading threw', { lease, err })
    }

    let lastRenew = this.clock.now()
    let lastOk = true
    let why = ''
    for (;;) {
      const deadline = lastRenew + this.renewDeadlineMs
      // After a failure, retry no later than the deadline so a loss is noticed on time.
      const wait = lastOk ? this.retryPeriodMs : Math.min(this.retryPeriodMs, deadline - this.clock.now())
      await this.clock.sleep(Math.max(0, wait), stop)
      if (stop.aborted) break
      const start = this.clock.now()
      if (start >= deadline) {
        why = `no successful renewal for ${this.renewDeadlineMs} ms`
        break
      }
      // Not aborted by stop: a renewal in flight completes, then the Lease is released.
      const r = await this.tryAcquireOrRenew(deadline, undefined)
      if (r.kind === 'held') {
        this.renewals.success++
        lastRenew = start
        lastOk = true
        continue
      }
      this.renewals.failure++
      if (r.kind === 'busy') {
        why = `the lease is now held by ${r.holder}`
        break
      }
      lastOk = false
      this.log('warn', 'failed to renew the leader election lease', {
        lease,
        identity: this.identity,
        err: r.kind === 'error' ? r.error : 'conflict',
      })
      if (this.clock.now() >= deadline) {
        why = `no successful renewal for ${this.renewDeadlineMs} ms`
        break
      }
    }

    this.leading = false
    if (why) {
      this.log('error', 'lost leadership', { lease, identity: this.identity, reason: why })
      lead.abort(new Error(`leadership of lease ${lease} lost: ${why}`))
    } else {
      lead.abort(new Error(`leadership of lease ${lease} released`))
      await this.waitFor(work, this.releaseGraceMs)
      await this.release()
    }
    this.safe('onStoppedLeading', () => this.callbacks.onStoppedLeading?.())
  }

  /** Resolves when p settles or after ms, whichever comes first. */
  private async waitFor(p: Promise<void>, ms: number): Promise<void> {
    const timeout = new AbortController()
    await Promise.race([p.finally(() => timeout.abort()), this.clock.sleep(ms, timeout.signal)])
    timeout.abort()
  }

  private observe(spec: LeaseSpec | undefined): void {
    const key = recordKey(spec)
    if (key !== this.observedKey) {
      this.observedKey = key
      this.observedAt = this.clock.now()
    }
    const holder = spec?.holderIdentity ?? ''
    if (holder && holder !== this.reportedLeader) {
      this.reportedLeader = holder
      this.safe('onNewLeader', () => this.callbacks.onNewLeader?.(holder))
    } else if (!holder) {
      this.reportedLeader = ''
    }
  }

  /**
   * One read-then-write round; both requests together end by deadlineAt, so
   * a hung connection cannot stretch a renewal past the renew deadline.
   * signal may cut the read short; a write, once sent, is always awaited so
   * this process knows whether it holds the Lease.
   */
  private async tryAcquireOrRenew(deadlineAt: number, signal: AbortSignal | undefined): Promise<Attempt> {
    const timeoutMs = (): number => Math.max(1, Math.ceil(deadlineAt - this.clock.now()))
    let current: Lease | undefined
    try {
      current = await this.send('GET', this.path, { timeoutMs: timeoutMs(), ...(signal ? { signal } : {}) })
    } catch (error) {
      if (!(error instanceof KubeApiError && error.code === 404)) return { kind: 'error', error }
    }
    const now = this.clock.now()
    const stamp = formatMicroTime(now)

    if (!current) {
      const body: Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.name, namespace: this.namespace },
        spec: {
          holderIdentity: this.identity,
          leaseDurationSeconds: this.leaseSeconds,
          acquireTime: stamp,
          renewTime: stamp,
          leaseTransitions: 0,
        },
      }
      try {
        const created = await this.send('POST', `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.namespace)}/leases`, {
          timeoutMs: timeoutMs(),
          body,
        })
        this.lease = created
        this.observe(created.spec)
        return { kind: 'held' }
      } catch (error) {
        if (error instanceof KubeApiError && error.code === 409) return { kind: 'conflict' }
        return { kind: 'error', error }
      }
    }

    this.lease = current
    this.observe(current.spec)
    const old = current.spec ?? {}
    const holder = old.holderIdentity ?? ''
    const mine = holder === this.identity
    if (holder && !mine && (this.leading || !leaseExpired(old, this.observedAt, now, this.leaseSeconds * 1000))) {
      return { kind: 'busy', holder }
    }
    const spec: LeaseSpec = {
      ...old,
      holderIdentity: this.identity,
      leaseDurationSeconds: this.leaseSeconds,
      acquireTime: mine && old.acquireTime ? old.acquireTime : stamp,
      renewTime: stamp,
      leaseTransitions: mine ? (old.leaseTransitions ?? 0) : (old.leaseTransitions ?? 0) + 1,
    }
    try {
      const updated = await this.send('PUT', this.path, { timeoutMs: timeoutMs(), body: { ...current, spec } })
      this.lease = updated
      this.observe(updated.spec)
      return { kind: 'held' }
    } catch (error) {
      if (error instanceof KubeApiError && error.code === 409) return { kind: 'conflict' }
      return { kind: 'error', error }
    }
  }

  private send(method: 'GET' | 'POST' | 'PUT', path: string, init: RequestInit): Promise<Lease> {
    return this.client.request<Lease>(method, path, { ...init, lane: 'leader-election' })
  }

  /** Clears holderIdentity (and shortens the duration) on the Lease version last written by this process. */
  private async release(): Promise<void> {
    const lease = this.lease
    if (!lease || lease.spec?.holderIdentity !== this.identity) return
    const now = formatMicroTime(this.clock.now())
    const spec: LeaseSpec = { ...lease.spec, leaseDurationSeconds: 1, acquireTime: now, renewTime: now }
    delete spec.holderIdentity
    try {
      const updated = await this.send('PUT', this.path, { body: { ...lease, spec }, timeoutMs: this.renewDeadlineMs })
      this.lease = updated
      this.observe(updated.spec)
      this.log('info', 'released leadership', { lease: `${this.namespace}/${this.name}`, identity: this.identity })
    } catch (err) {
      // 409: someone wrote the Lease after our last renewal, so it is no longer ours to release.
      const level: LogLevel = err instanceof KubeApiError && err.code === 409 ? 'debug' : 'warn'
      this.log(level, 'could not release the leader election lease', {
        lease: `${this.namespace}/${this.name}`,
        identity: this.identity,
        err,
      })
    }
  }
}
