// Leader election against the real API server: one leader among candidates,
// the Lease as the server stores it, hand-over on a graceful stop, and the
// two ways a leader loses its lease (another writer takes it; the server
// becomes unreachable) without ever overlapping with its successor; and a
// leader whose client is saturated by work keeps its lease.

import t from 'tap'
import { KubeConfig } from '@kubernetes/client-node'
import { adminClient, freshNamespace, eventually, clusterInfo } from './helpers/cluster.ts'
import { startProxy } from './helpers/proxy.ts'
import { KubeClient } from '../../src/kube/client.ts'
import { LeaderElector, formatMicroTime, type Lease, type LeaderElectorOptions } from '../../src/kube/lease.ts'
import type { LogFn } from '../../src/telemetry/log.ts'

const client = adminClient()
t.teardown(() => client.close())

const MICRO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/
const LEASE = 'template-sync-reconciler'
const leasePath = (ns: string): string => `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${LEASE}`

/** What one candidate went through, with times, for ordering assertions. */
interface Observed {
  readonly startedAt: number[]
  readonly stoppedAt: number[]
  readonly leaders: string[]
  /** The signal handed to onStartedLeading in the latest term. */
  signal: AbortSignal | undefined
  abortedAt: number | undefined
}

interface Candidate extends Observed {
  readonly elector: LeaderElector
  /** The elector's run(): resolves when its term ends. */
  readonly running: Promise<void>
}

interface TestLike {
  teardown(fn: () => unknown): void
}

const quiet: LogFn = () => {}

function candidate(
  t: TestLike,
  opts: Partial<LeaderElectorOptions> & { namespace: string; identity: string },
  work?: (signal: AbortSignal) => Promise<void>,
): Candidate {
  const seen: Observed = { startedAt: [], stoppedAt: [], leaders: [], signal: undefined, abortedAt: undefined }
  const elector = new LeaderElector({
    client,
    name: LEASE,
    leaseDurationMs: 3_000,
    renewDeadlineMs: 2_000,
    retryPeriodMs: 250,
    jitter: 0.2,
    log: quiet,
    ...opts,
    callbacks: {
      onStartedLeading: (signal) => {
        seen.startedAt.push(Date.now())
        seen.signal = signal
        signal.addEventListener('abort', () => (seen.abortedAt = Date.now()), { once: true })
        return work?.(signal)
      },
      onStoppedLeading: () => void seen.stoppedAt.push(Date.now()),
      onNewLeader: (id) => void seen.leaders.push(id),
    },
  })
  t.teardown(() => elector.stop())
  return Object.assign(seen, { elector, running: elector.run() })
}

const readLease = (ns: string): Promise<Lease> => client.get<Lease>(leasePath(ns))

t.test('two candidates: exactly one leads, and the Lease records it with MicroTime values', async (t) => {
  const ns = await freshNamespace(t, client)
  const a = candidate(t, { namespace: ns, identity: 'candidate-a' })
  const b = candidate(t, { namespace: ns, identity: 'candidate-b' })
  const leader = await eventually('a leader', async () => [a, b].find((c) => c.elector.isLeader()))
  const other = leader === a ? b : a
  // Watch both for a few renewal periods: never two leaders.
  for (let i = 0; i < 15; i++) {
    t.equal([a, b].filter((c) => c.elector.isLeader()).length, 1, `one leader at sample ${i}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  t.equal(a.startedAt.length + b.startedAt.length, 1, 'onStartedLeading ran once in total')
  t.equal(other.startedAt.length, 0)

  const lease = await readLease(ns)
  t.equal(lease.spec?.holderIdentity, leader.elector.identity)
  t.equal(lease.spec?.leaseDurationSeconds, 3)
  t.equal(lease.spec?.leaseTransitions, 0, 'created by the first holder')
  t.match(lease.spec?.renewTime, MICRO, 'renewTime is a MicroTime with 6 fractional digits')
  t.match(lease.spec?.acquireTime, MICRO)
  const firstRenew = lease.spec?.renewTime
  await eventually('a renewal', async () => ((await readLease(ns)).spec?.renewTime !== firstRenew ? true : undefined), 5_000)
  t.equal((await readLease(ns)).spec?.acquireTime, lease.spec?.acquireTime, 'renewals keep acquireTime')
  t.ok(other.leaders.includes(leader.elector.identity), 'the other candidate was told who leads')
  t.equal(other.elector.observedLeader(), leader.elector.identity)
})

t.test('a graceful stop releases the Lease and the other candidate takes over at once', async (t) => {
  const ns = await freshNamespace(t, client)
  // A long lease: a successor that waited for expiry would need 20 s.
  const timing = { leaseDurationMs: 20_000, renewDeadlineMs: 10_000, retryPeriodMs: 250 }
  let workEnded = 0
  const a = candidate(t, { namespace: ns, identity: 'first', ...timing }, async (signal) => {
    await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }))
    // In-flight work winds down before the Lease is handed over.
    await new Promise((r) => setTimeout(r, 300))
    workEnded = Date.now()
  })
  await eventually('first leads', async () => (a.elector.isLeader() ? true : undefined))
  const b = candidate(t, { namespace: ns, identity: 'second', ...timing })
  await eventually('second has seen the leader', async () => (b.leaders.includes('first') ? true : undefined))

  const stopAt = Date.now()
  await a.elector.stop()
  await a.running
  t.ok(a.abortedAt !== undefined && a.abortedAt >= stopAt, 'the leader signal aborted')
  t.ok(workEnded > 0 && a.stoppedAt.length === 1, 'work ended and onStoppedLeading ran')
  const released = await readLease(ns)
  t.ok(
    released.spec?.holderIdentity === undefined || released.spec.holderIdentity === 'second',
    'holderIdentity was cleared (or already taken over)',
  )

  await eventually('second leads', async () => (b.elector.isLeader() ? true : undefined), 5_000, 20)
  const tookMs = (b.startedAt[0] ?? Infinity) - stopAt
  t.ok(tookMs < 5_000, `the successor took over in ${tookMs} ms, well before the 20 s lease would expire`)
  t.ok((b.startedAt[0] ?? 0) >= workEnded, 'the successor started only after the old leader finished its work')
  const lease = await readLease(ns)
  t.equal(lease.spec?.holderIdentity, 'second')
  t.equal(lease.spec?.leaseTransitions, 1, 'one change of holder')
  t.equal(lease.spec?.leaseDurationSeconds, 20)
})

t.test('a leader whose Lease is taken by another writer stops leading and its signal aborts', async (t) => {
  const ns = await freshNamespace(t, client)
  const a = candidate(t, { namespace: ns, identity: 'victim' })
  await eventually('victim leads', async () => (a.elector.isLeader() ? true : undefined))
  const current = await readLease(ns)
  const now = formatMicroTime(Date.now())
  const stolenAt = Date.now()
  await client.request('PUT', leasePath(ns), {
    body: {
      ...current,
      spec: {
        ...current.spec,
        holderIdentity: 'intruder',
        acquireTime: now,
        renewTime: now,
        leaseTransitions: (current.spec?.leaseTransitions ?? 0) + 1,
      },
    },
  })
  await a.running
  t.notOk(a.elector.isLeader())
  t.ok(a.signal?.aborted, 'the leader signal aborted')
  t.match(String((a.signal?.reason as Error | undefined)?.message), /held by intruder/, 'the abort reason names the new holder')
  const tookMs = (a.abortedAt ?? Infinity) - stolenAt
  t.ok(tookMs < 2_000, `noticed within ${tookMs} ms (at the next renewal, not at the renew deadline)`)
  t.equal(a.stoppedAt.length, 1, 'onStoppedLeading ran')
  t.equal((await readLease(ns)).spec?.holderIdentity, 'intruder', 'a lost lease is not released or overwritten')
})

t.test('a leader that cannot reach the server gives up within renewDeadline, before a successor starts', async (t) => {
  const ns = await freshNamespace(t, client)
  const proxy = await startProxy(clusterInfo().server)
  t.teardown(() => proxy.close())
  const kc = new KubeConfig()
  kc.loadFromFile(clusterInfo().kubeconfig)
  const cluster = kc.getCurrentCluster()
  if (!cluster) throw new Error('kubeconfig has no current cluster')
  kc.clusters = kc.clusters.map((c) => (c.name === cluster.name ? { ...c, server: proxy.url, tlsServerName: 'localhost' } : c))
  const viaProxy = new KubeClient(kc)
  t.teardown(() => viaProxy.close())

  const a = candidate(t, { namespace: ns, identity: 'isolated', client: viaProxy })
  await eventually('isolated leads', async () => (a.elector.isLeader() ? true : undefined))
  const b = candidate(t, { namespace: ns, identity: 'standby' })
  await eventually('standby has seen the leader', async () => (b.leaders.includes('isolated') ? true : undefined))

  // Requests hang instead of failing: the renewal timeout must still end at the deadline.
  const frozenAt = Date.now()
  proxy.freeze()
  await a.running
  const gaveUpMs = (a.abortedAt ?? Infinity) - frozenAt
  t.ok(a.signal?.aborted, 'the leader signal aborted')
  t.match(String((a.signal?.reason as Error | undefined)?.message), /no successful renewal/)
  t.ok(gaveUpMs <= 2_000 + 500, `gave up ${gaveUpMs} ms after losing the server (renewDeadline 2000 ms)`)
  t.equal(a.stoppedAt.length, 1)

  await eventually('standby takes over after the lease expires', async () => (b.elector.isLeader() ? true : undefined), 10_000, 20)
  const successorStarted = b.startedAt[0] ?? 0
  t.ok(successorStarted > (a.abortedAt ?? Infinity), 'the successor started after the old leader had stopped')
  t.ok(successorStarted - frozenAt >= 2_000, `and not before the lease could have expired (${successorStarted - frozenAt} ms)`)
  const lease = await readLease(ns)
  t.equal(lease.spec?.holderIdentity, 'standby')
  t.equal(lease.spec?.leaseTransitions, 1)
  proxy.thaw()
})

t.test('renewals go through while every work connection of the client is taken', async (t) => {
  const ns = await freshNamespace(t, client)
  const busy = KubeClient.fromFile(clusterInfo().kubeconfig, 'template-sync-lease-load')
  t.teardown(() => busy.close())
  // Watches hold their connection for as long as they run: 64 of them take every socket of the work lane.
  const stopWatches = new AbortController()
  const watches = Array.from({ length: 64 }, () =>
    busy.watch(`/api/v1/namespaces/${ns}/configmaps`, { timeoutSeconds: 30 }, () => {}, stopWatches.signal).catch(() => {}),
  )
  t.teardown(() => stopWatches.abort())
  await eventually('64 watches open', async () => ((busy.counter.byVerb.WATCH ?? 0) >= 64 ? true : undefined))
  await new Promise((r) => setTimeout(r, 300))
  let workAnswered = false
  const work = busy.get(`/api/v1/namespaces/${ns}`).then(() => (workAnswered = true))

  const a = candidate(t, { namespace: ns, identity: 'loaded', client: busy })
  await eventually('the loaded client leads', async () => (a.elector.isLeader() ? true : undefined), 5_000)
  const renewTimes = new Set<string>()
  // Three times the renew deadline (2 s) at a 250 ms retry period.
  for (const end = Date.now() + 6_000; Date.now() < end; ) {
    renewTimes.add((await readLease(ns)).spec?.renewTime ?? '')
    await new Promise((r) => setTimeout(r, 200))
  }
  t.ok(a.elector.isLeader(), 'still the leader after three renew deadlines')
  t.equal(a.signal?.aborted, false, 'its leader signal never aborted')
  t.ok(renewTimes.size >= 10, `the Lease was renewed all along (${renewTimes.size} distinct renewTimes in 6 s)`)
  t.notOk(workAnswered, 'meanwhile a work request of the same client still waits for a connection')

  stopWatches.abort()
  await Promise.all(watches)
  await work
  t.ok(workAnswered, 'the work request is answered once a connection is free')
})
