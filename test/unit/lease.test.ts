// The pure parts of leader election: MicroTime formatting, the expiry rule,
// identities and option checks; plus the campaign loop's pacing against a
// client that cannot reach any server. Behaviour against the API server is in
// test/integration/lease.test.ts.

import t from 'tap'
import type { KubeClient, RequestInit } from '../../src/kube/client.ts'
import { KubeApiError } from '../../src/kube/errors.ts'
import { defaultIdentity, type ElectionClock, formatMicroTime, LeaderElector, leaseExpired } from '../../src/kube/lease.ts'
import type { LogFn } from '../../src/telemetry/log.ts'

const MICRO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/

t.test('MicroTime has exactly six fractional digits', async (t) => {
  const ms = Date.UTC(2026, 10, 29, 18, 0, 0, 123)
  t.equal(formatMicroTime(ms), '2026-11-29T18:00:00.123000Z')
  t.equal(formatMicroTime(ms + 0.456), '2026-11-29T18:00:00.123456Z', 'sub-millisecond time is kept')
  t.equal(formatMicroTime(Date.UTC(2026, 0, 1)), '2026-01-01T00:00:00.000000Z')
  t.equal(formatMicroTime(ms + 0.9995), '2026-11-29T18:00:00.123999Z', 'truncates rather than rounding into the next millisecond')
  t.match(formatMicroTime(Date.now()), MICRO)
})

t.test('expiry is measured from when this process saw the record change', async (t) => {
  const spec = { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: '2000-01-01T00:00:00.000000Z' }
  t.notOk(leaseExpired(spec, 1_000, 15_999, 10_000), 'an ancient renewTime alone does not expire it')
  t.ok(leaseExpired(spec, 1_000, 16_000, 10_000), 'expired once the duration has passed unchanged')
  t.ok(leaseExpired({ ...spec, holderIdentity: '' }, 1_000, 1_000, 10_000), 'a released lease is free at once')
  t.ok(leaseExpired(undefined, 1_000, 1_000, 10_000), 'so is a lease without a spec')
  t.notOk(leaseExpired({ holderIdentity: 'a' }, 1_000, 10_999, 10_000), 'the configured duration applies when the record has none')
  t.ok(leaseExpired({ holderIdentity: 'a' }, 1_000, 11_000, 10_000))
})

t.test('identities are the host name plus a random suffix', async (t) => {
  const a = defaultIdentity('reconciler-7d9f')
  const b = defaultIdentity('reconciler-7d9f')
  t.match(a, /^reconciler-7d9f-[0-9a-f]{8}$/)
  t.not(a, b, 'two processes on one host differ')
})

const unreachable: Pick<KubeClient, 'request'> = {
  request: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1')),
}

t.test('timing options are checked', async (t) => {
  const base = { client: unreachable, namespace: 'ns', name: 'l', callbacks: { onStartedLeading: () => {} } }
  t.throws(() => new LeaderElector({ ...base, leaseDurationMs: 1500 }), /whole number of seconds/)
  t.throws(
    () => new LeaderElector({ ...base, leaseDurationMs: 5000, renewDeadlineMs: 5000 }),
    /retryPeriod < renewDeadline < leaseDuration/,
  )
  t.throws(() => new LeaderElector({ ...base, renewDeadlineMs: 2000, retryPeriodMs: 2000 }), /ns\/l/)
  t.throws(() => new LeaderElector({ ...base, retryPeriodMs: 0 }))
  const e = new LeaderElector({ ...base, identity: 'me' })
  t.equal(e.identity, 'me')
  t.notOk(e.isLeader())
})

/** A clock whose sleeps complete when the test advances time. */
class ManualClock implements ElectionClock {
  t = 0
  private sleepers: { until: number; resolve: () => void }[] = []

  now(): number {
    return this.t
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve()
      const s = { until: this.t + ms, resolve }
      this.sleepers.push(s)
      signal?.addEventListener('abort', () => {
        this.sleepers = this.sleepers.filter((x) => x !== s)
        resolve()
      })
    })
  }

  sleeping(): number[] {
    return this.sleepers.map((s) => s.until)
  }

  advance(ms: number): void {
    this.t += ms
    const due = this.sleepers.filter((s) => s.until <= this.t)
    this.sleepers = this.sleepers.filter((s) => s.until > this.t)
    for (const s of due) s.resolve()
  }
}

const settle = (): Promise<void> => new Promise((r) => setImmediate(r))

t.test('without a reachable server it keeps campaigning at the jittered retry period, logs, and stops on request', async (t) => {
  const clock = new ManualClock()
  const logs: string[] = []
  const log: LogFn = (level, msg) => logs.push(`${level}: ${msg}`)
  let attempts = 0
  const client: Pick<KubeClient, 'request'> = {
    request: () => {
      attempts++
      return Promise.reject(new Error('connect ECONNREFUSED'))
    },
  }
  let started = false
  const e = new LeaderElector({
    client,
    namespace: 'ns',
    name: 'l',
    identity: 'me',
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    jitter: 1.2,
    random: () => 0.5,
    clock,
    log,
    callbacks: { onStartedLeading: () => void (started = true) },
  })
  const running = e.run()
  await settle()
  t.equal(attempts, 1, 'tries at once')
  t.strictSame(clock.sleeping(), [3_200], 'then waits retryPeriod * (1 + 0.5 * 1.2)')
  clock.advance(3_200)
  await settle()
  t.equal(attempts, 2)
  t.equal(logs.filter((l) => l.startsWith('warn:')).length, 2, 'each failure is logged')
  await e.stop()
  await running
  t.notOk(started, 'never led')
  t.notOk(e.isLeader())
})

t.test('run cannot be entered twice at once', async (t) => {
  const e = new LeaderElector({
    client: unreachable,
    namespace: 'ns',
    name: 'l',
    random: () => 0,
    callbacks: { onStartedLeading: () => {} },
  })
  const first = e.run()
  await t.rejects(e.run(), /already running/)
  await e.stop()
  await first
})

t.test('every Lease request goes on the leader-election lane', async (t) => {
  const clock = new ManualClock()
  const seen: string[] = []
  let lease: Record<string, unknown> | undefined
  const client: Pick<KubeClient, 'request'> = {
    request: async <T>(method: string, _path: string, init?: RequestInit): Promise<T> => {
      seen.push(`${method} ${init?.lane ?? 'work'}`)
      if (method === 'GET') {
        if (!lease) throw new KubeApiError('GET', 'lease', 404, 'NotFound', 'not found')
        return lease as T
      }
      lease = { ...(init?.body as Record<string, unknown>), metadata: { name: 'l', namespace: 'ns', resourceVersion: String(seen.length) } }
      return lease as T
    },
  }
  const e = new LeaderElector({
    client,
    namespace: 'ns',
    name: 'l',
    identity: 'me',
    clock,
    random: () => 0,
    callbacks: { onStartedLeading: () => {} },
  })
  const running = e.run()
  await settle()
  t.ok(e.isLeader())
  clock.advance(2_000)
  await settle()
  t.strictSame(e.renewals, { success: 1, failure: 0 }, 'the renewal is counted')
  t.equal(e.observedTransitions(), 0, 'a Lease created by this process has had no transition')
  await e.stop()
  await running
  t.strictSame(
    seen,
    ['GET leader-election', 'POST leader-election', 'GET leader-election', 'PUT leader-election', 'PUT leader-election'],
    'create, one renewal (read and write), and the release',
  )
})

t.test('failed renewals are counted apart from successful ones', async (t) => {
  const clock = new ManualClock()
  let lease: Record<string, unknown> | undefined
  let down = false
  const client: Pick<KubeClient, 'request'> = {
    request: async <T>(method: string, _path: string, init?: RequestInit): Promise<T> => {
      if (down) throw new KubeApiError(method, 'lease', 503, 'ServiceUnavailable', 'down')
      if (method === 'GET') {
        if (!lease) throw new KubeApiError('GET', 'lease', 404, 'NotFound', 'not found')
        return lease as T
      }
      lease = { ...(init?.body as Record<string, unknown>), metadata: { name: 'l', namespace: 'ns', resourceVersion: '1' } }
      return lease as T
    },
  }
  const e = new LeaderElector({
    client,
    namespace: 'ns',
    name: 'l',
    identity: 'me',
    clock,
    random: () => 0,
    callbacks: { onStartedLeading: () => {} },
  })
  t.equal(e.observedTransitions(), undefined, 'nothing read yet')
  const running = e.run()
  await settle()
  down = true
  clock.advance(2_000)
  await settle()
  t.strictSame(e.renewals, { success: 0, failure: 1 })
  down = false
  await e.stop()
  await running
})
