// The work queue's contract, driven by a manual clock so every delay is exact
// and no test sleeps: de-duplication, one worker per key, re-queue after done,
// delayed adds, backoff and the token bucket, shutdown, metrics; then the
// worker loop; then one run on real timers with several workers.

import t from 'tap'
import { KeyBackoff, TokenBucket, WorkQueue } from '../../src/controller/queue.ts'
import { runWorkers } from '../../src/controller/workers.ts'
import type { LogFn } from '../../src/telemetry/log.ts'
import { MetricsRegistry } from '../../src/telemetry/metrics.ts'
import { ManualClock } from './queue-clock.ts'

const settle = (): Promise<void> => new Promise((r) => setImmediate(r))

function setup(opts: { backoff?: { baseMs?: number; maxMs?: number }; bucket?: { qps?: number; burst?: number } } = {}): {
  q: WorkQueue<string>
  clock: ManualClock
  registry: MetricsRegistry
} {
  const clock = new ManualClock()
  const registry = new MetricsRegistry()
  const q = new WorkQueue<string>({ name: 'test', clock, registry, ...opts })
  return { q, clock, registry }
}

/** Takes every ready key, in order, marking each done. */
async function drain(q: WorkQueue<string>): Promise<string[]> {
  const out: string[] = []
  while (q.len() > 0) {
    const k = await q.get()
    if (k === undefined) break
    out.push(k)
    q.done(k)
  }
  return out
}

t.test('de-duplication', async (t) => {
  t.test('a key added while queued is queued once', async (t) => {
    const { q } = setup()
    q.add('a')
    q.add('b')
    q.add('a')
    q.add('a')
    t.equal(q.len(), 2)
    t.strictSame(await drain(q), ['a', 'b'], 'first-add order is kept')
    t.equal((await q.metrics()).adds, 2, 'only adds that queued a key are counted')
  })

  t.test('keys come out in the order they were first added', async (t) => {
    const { q } = setup()
    for (const k of ['c', 'a', 'b', 'a', 'c', 'd']) q.add(k)
    t.strictSame(await drain(q), ['c', 'a', 'b', 'd'])
  })
})

t.test('processing exclusivity', async (t) => {
  t.test('a key being processed is not handed to a second worker', async (t) => {
    const { q } = setup()
    q.add('a')
    t.equal(await q.get(), 'a')
    q.add('a')
    t.equal(q.len(), 0, 'the in-flight key is not queued again yet')
    t.equal((await q.metrics()).depth, 1, 'but it is counted as pending work')
    let second: string | undefined
    void q.get().then((k) => (second = k))
    await settle()
    t.equal(second, undefined, 'a second worker waits')
    q.done('a')
    await settle()
    t.equal(second, 'a', 'the re-added key is handed out after done')
    q.done('a')
    t.equal(q.len(), 0)
    t.equal(q.inFlight(), 0)
  })

  t.test('several re-adds during processing queue the key once', async (t) => {
    const { q } = setup()
    q.add('a')
    await q.get()
    q.add('a')
    q.add('a')
    q.add('b')
    q.done('a')
    t.strictSame(await drain(q), ['b', 'a'], 'b was queued first; a once, after done')
  })

  t.test('a key not re-added is not queued again after done', async (t) => {
    const { q } = setup()
    q.add('a')
    await q.get()
    q.done('a')
    t.equal(q.len(), 0)
  })

  t.test('done for a key that is not in flight does nothing', async (t) => {
    const { q } = setup()
    q.add('a')
    q.done('a')
    q.done('zzz')
    t.equal(q.len(), 1, 'a stays queued')
    t.equal(await q.get(), 'a')
  })

  t.test('a waiting get receives a key as soon as one is added', async (t) => {
    const { q } = setup()
    const waiting = [q.get(), q.get()]
    q.add('x')
    q.add('y')
    t.strictSame(await Promise.all(waiting), ['x', 'y'])
    t.equal(q.inFlight(), 2)
  })
})

t.test('addAfter', async (t) => {
  t.test('delayed keys arrive in time order, ties in call order', async (t) => {
    const { q, clock } = setup()
    q.addAfter('c', 300)
    q.addAfter('a', 100)
    q.addAfter('b', 200)
    q.addAfter('d', 200)
    t.equal(clock.pendingTimers(), 1, 'one timer for the whole heap')
    clock.advance(99)
    t.equal(q.len(), 0, 'nothing before its time')
    clock.advance(1)
    t.strictSame(await drain(q), ['a'])
    clock.advance(100)
    t.strictSame(await drain(q), ['b', 'd'])
    clock.advance(100)
    t.strictSame(await drain(q), ['c'])
    t.equal(clock.pendingTimers(), 0, 'no timer left once the heap is empty')
  })

  t.test('a key waiting twice keeps the earlier time', async (t) => {
    const { q, clock } = setup()
    q.addAfter('x', 500)
    q.addAfter('x', 100)
    q.addAfter('x', 1000)
    clock.advance(100)
    t.strictSame(await drain(q), ['x'])
    clock.advance(1000)
    t.equal(q.len(), 0, 'the superseded times do not add it again')
  })

  t.test('zero or negative delays add at once', async (t) => {
    const { q, clock } = setup()
    q.addAfter('a', 0)
    q.addAfter('b', -5)
    t.equal(q.len(), 2)
    t.equal(clock.pendingTimers(), 0)
  })

  t.test('a delayed key that is already queued is not duplicated', async (t) => {
    const { q, clock } = setup()
    q.add('a')
    q.addAfter('a', 10)
    clock.advance(10)
    t.strictSame(await drain(q), ['a'])
  })

  t.test('a delayed key arriving while in flight is re-queued after done', async (t) => {
    const { q, clock } = setup()
    q.add('a')
    await q.get()
    q.addAfter('a', 10)
    clock.advance(10)
    t.equal(q.len(), 0)
    q.done('a')
    t.strictSame(await drain(q), ['a'])
  })

  t.test('an earlier key replaces the pending timer', async (t) => {
    const { q, clock } = setup()
    q.addAfter('late', 1000)
    q.addAfter('early', 10)
    t.equal(clock.pendingTimers(), 1)
    clock.advance(10)
    t.strictSame(await drain(q), ['early'])
    clock.advance(990)
    t.strictSame(await drain(q), ['late'])
  })

  t.test('many superseded entries do not grow the heap without bound', async (t) => {
    const { q, clock } = setup()
    for (let i = 0; i < 10_000; i++) q.addAfter('k', 100_000 - i)
    clock.advance(100_000)
    t.strictSame(await drain(q), ['k'])
  })
})

/** The delay addRateLimited chose for key: the time until the key became ready. */
async function measureDelay(q: WorkQueue<string>, clock: ManualClock, key: string, limit = 200_000): Promise<number> {
  q.addRateLimited(key)
  let waited = 0
  while (q.len() === 0 && waited < limit) {
    clock.advance(1)
    waited++
  }
  const k = await q.get()
  if (k !== undefined) q.done(k)
  return waited
}

t.test('rate limiting', async (t) => {
  t.test('per-key backoff doubles from 50 ms up to the cap', async (t) => {
    const b = new KeyBackoff<string>({ baseMs: 50, maxMs: 60_000 })
    const delays = Array.from({ length: 14 }, () => b.when('k'))
    t.strictSame(delays, [50, 100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 51200, 60000, 60000, 60000])
    t.equal(b.numRequeues('k'), 14)
    for (let i = 0; i < 2000; i++) b.when('k')
    t.equal(b.when('k'), 60_000, 'no overflow to Infinity or NaN after many failures')
    t.equal(b.when('other'), 50, 'keys back off independently')
    b.forget('k')
    t.equal(b.numRequeues('k'), 0)
    t.equal(b.when('k'), 50, 'forget starts again from the base delay')
  })

  t.test('the queue waits out the backoff; forget resets it', async (t) => {
    const { q, clock } = setup({ backoff: { baseMs: 50, maxMs: 400 } })
    const seen: number[] = []
    for (let i = 0; i < 6; i++) seen.push(await measureDelay(q, clock, 'k'))
    t.strictSame(seen, [50, 100, 200, 400, 400, 400], 'capped at the configured maximum')
    t.equal(q.numRequeues('k'), 6)
    q.forget('k')
    t.equal(q.numRequeues('k'), 0)
    t.equal(await measureDelay(q, clock, 'k'), 50)
    t.equal((await q.metrics()).retries, 7)
  })

  t.test('token bucket: burst, then one token per 1/qps', async (t) => {
    const now = 0
    const b = new TokenBucket({ qps: 10, burst: 3 }, now)
    t.strictSame([b.reserve(now), b.reserve(now), b.reserve(now)], [0, 0, 0], 'the burst is free')
    t.strictSame([b.reserve(now), b.reserve(now)], [100, 200], 'later callers queue behind earlier reservations')
    t.equal(b.reserve(1000), 0, 'tokens refill over time')
    const c = new TokenBucket({ qps: 10, burst: 3 }, 0)
    for (let i = 0; i < 3; i++) c.reserve(0)
    t.equal(c.reserve(1_000_000), 0)
    t.equal(c.reserve(1_000_000), 0)
    t.equal(c.reserve(1_000_000), 0)
    t.equal(c.reserve(1_000_000), 100, 'refill stops at the burst size')
  })

  t.test('the larger of backoff and bucket delay wins', async (t) => {
    const { q, clock } = setup({ backoff: { baseMs: 5, maxMs: 1000 }, bucket: { qps: 2, burst: 1 } })
    q.addRateLimited('a') // backoff 5, bucket 0
    q.addRateLimited('b') // backoff 5, bucket 500
    clock.advance(5)
    t.strictSame(await drain(q), ['a'], 'a only waited for its backoff')
    clock.advance(494)
    t.equal(q.len(), 0, 'b waits for the overall limit')
    clock.advance(1)
    t.strictSame(await drain(q), ['b'])
  })

  t.test('the defaults are 50 ms doubling to 60 s, 20 per second with a burst of 200', async (t) => {
    const { q, clock } = setup()
    t.equal(await measureDelay(q, clock, 'x'), 50)
    for (let i = 0; i < 30; i++) q.addRateLimited('y')
    clock.advance(60_000)
    await drain(q)
    t.equal(await measureDelay(q, clock, 'y'), 60_000)
    const fresh = setup()
    for (let i = 0; i < 202; i++) fresh.q.addRateLimited(`k${i}`)
    fresh.clock.advance(50)
    t.equal(fresh.q.len(), 201, 'the burst of 200 waits only for the backoff, and so does the 201st (its token takes 50 ms too)')
    fresh.clock.advance(49)
    t.equal(fresh.q.len(), 201, 'the 202nd waits for the next token, 1/20 s later')
    fresh.clock.advance(1)
    t.equal(fresh.q.len(), 202)
  })

  t.test('invalid settings are rejected', async (t) => {
    t.throws(() => new KeyBackoff({ baseMs: 0, maxMs: 10 }))
    t.throws(() => new KeyBackoff({ baseMs: 100, maxMs: 10 }))
    t.throws(() => new TokenBucket({ qps: 0, burst: 1 }, 0))
    t.throws(() => new TokenBucket({ qps: 1, burst: 0 }, 0))
  })
})

t.test('shutdown', async (t) => {
  t.test('waiting get calls resolve to undefined', async (t) => {
    const { q } = setup()
    const waiting = [q.get(), q.get()]
    q.shutDown()
    t.strictSame(await Promise.all(waiting), [undefined, undefined])
    t.equal(await q.get(), undefined, 'and so do later ones')
    t.ok(q.isShuttingDown())
  })

  t.test('queued and delayed keys are dropped, adds are ignored', async (t) => {
    const { q, clock } = setup()
    q.add('a')
    q.addAfter('b', 10)
    q.addRateLimited('c')
    q.shutDown()
    t.equal(clock.pendingTimers(), 0, 'the delay timer is cancelled')
    q.add('d')
    q.addAfter('e', 1)
    q.addRateLimited('f')
    clock.advance(1000)
    t.equal(q.len(), 0)
    t.equal(await q.get(), undefined)
    t.equal((await q.metrics()).depth, 0)
  })

  t.test('in-flight keys may still be marked done, and are not re-queued', async (t) => {
    const { q } = setup()
    q.add('a')
    await q.get()
    q.add('a')
    q.shutDown()
    q.done('a')
    t.equal(q.len(), 0)
    t.equal(q.inFlight(), 0)
  })

  t.test('shutDownWithDrain resolves once in-flight keys are done', async (t) => {
    const { q } = setup()
    q.add('a')
    q.add('b')
    await q.get()
    await q.get()
    let drained = false
    const p = q.shutDownWithDrain().then(() => (drained = true))
    await settle()
    t.notOk(drained, 'still waiting for two keys')
    q.done('a')
    await settle()
    t.notOk(drained, 'still waiting for one key')
    q.done('b')
    await p
    t.ok(drained)
    await q.shutDownWithDrain()
    t.pass('a second drain with nothing in flight resolves at once')
  })

  t.test('shutDown is idempotent', async (t) => {
    const { q } = setup()
    q.shutDown()
    q.shutDown()
    await q.shutDownWithDrain()
    t.pass()
  })
})

t.test('metrics', async (t) => {
  t.test('depth, adds, retries, latency, work duration and the longest running key', async (t) => {
    const { q, clock, registry } = setup({ backoff: { baseMs: 10, maxMs: 10 } })
    t.match(await registry.render(), /^workqueue_retries_total\{name="test"\} 0$/m, 'counters exist before the first retry')
    q.add('a')
    q.add('b')
    q.add('a')
    t.equal((await q.metrics()).depth, 2)
    clock.advance(30)
    await q.get() // a waited 30 ms
    clock.advance(10)
    await q.get() // b waited 40 ms
    clock.advance(70)
    let m = await q.metrics()
    t.equal(m.depth, 0)
    t.equal(m.adds, 2)
    t.equal(m.longestRunningMs, 80, 'a has been running for 80 ms')
    t.equal(m.unfinishedWorkMs, 150, '80 ms for a plus 70 ms for b')
    t.equal(m.latencyMs.count, 2)
    t.equal(m.latencyMs.sumMs, 70)
    t.strictSame(
      m.latencyMs.buckets.filter((b) => b.leMs === 25 || b.leMs === 50),
      [
        { leMs: 25, count: 0 },
        { leMs: 50, count: 2 },
      ],
      'cumulative bucket counts in milliseconds',
    )
    q.done('a')
    q.addRateLimited('a')
    clock.advance(20)
    q.done('b')
    m = await q.metrics()
    t.equal(m.workDurationMs.count, 2)
    t.equal(m.workDurationMs.sumMs, 80 + 90)
    t.equal(m.retries, 1)
    t.equal(m.adds, 3, 'the rate-limited add queued a again')
    t.equal(m.longestRunningMs, 0, 'nothing in flight')

    const text = await registry.render()
    t.match(text, /^workqueue_depth\{name="test"\} 1$/m, 'the rate-limited key is pending')
    t.match(text, /^workqueue_adds_total\{name="test"\} 3$/m)
    t.match(text, /^workqueue_retries_total\{name="test"\} 1$/m)
    t.match(text, /^workqueue_queue_duration_seconds_count\{name="test"\} 2$/m, 'a is queued again but not yet taken')
    const workSum = /^workqueue_work_duration_seconds_sum\{name="test"\} (\S+)$/m.exec(text)?.[1]
    t.ok(Math.abs(Number(workSum) - 0.17) < 1e-9, `work duration sum in seconds (${workSum})`)
    t.match(text, /^workqueue_longest_running_processor_seconds\{name="test"\} 0$/m)
  })

  t.test('the in-flight gauges are refreshed when the registry renders', async (t) => {
    const { q, clock, registry } = setup()
    q.add('a')
    await q.get()
    clock.advance(1500)
    t.match(await registry.render(), /^workqueue_longest_running_processor_seconds\{name="test"\} 1\.5$/m)
  })

  t.test('two queues share the metric families with their own name label; dispose removes a series', async (t) => {
    const registry = new MetricsRegistry()
    const clock = new ManualClock()
    const one = new WorkQueue<string>({ name: 'one', registry, clock })
    const two = new WorkQueue<string>({ name: 'two', registry, clock })
    one.add('x')
    two.add('x')
    two.add('y')
    let text = await registry.render()
    t.match(text, /^workqueue_adds_total\{name="one"\} 1$/m)
    t.match(text, /^workqueue_adds_total\{name="two"\} 2$/m)
    one.dispose()
    text = await registry.render()
    t.notMatch(text, /name="one"/)
    t.match(text, /name="two"/)
  })
})

t.test('workers', async (t) => {
  const logs: { level: string; msg: string; fields?: Readonly<Record<string, unknown>> }[] = []
  const log: LogFn = (level, msg, fields) => logs.push({ level, msg, ...(fields ? { fields } : {}) })

  t.test('a failure is logged and retried with backoff; success resets the backoff', async (t) => {
    const { q, clock } = setup({ backoff: { baseMs: 100, maxMs: 10_000 } })
    logs.length = 0
    const calls: string[] = []
    let failuresLeft = 2
    const running = runWorkers(
      q,
      1,
      async (key) => {
        calls.push(`${key}@${clock.now()}`)
        if (failuresLeft-- > 0) throw new Error('boom')
      },
      { log },
    )
    const t0 = clock.now()
    q.add('k')
    await settle()
    t.equal(q.numRequeues('k'), 1, 'first failure counted')
    clock.advance(100)
    await settle()
    t.equal(q.numRequeues('k'), 2)
    clock.advance(199)
    await settle()
    t.equal(calls.length, 2, 'the second retry waits 200 ms')
    clock.advance(1)
    await settle()
    t.strictSame(calls, [`k@${t0}`, `k@${t0 + 100}`, `k@${t0 + 300}`])
    t.equal(q.numRequeues('k'), 0, 'forgotten after success')
    t.equal(logs.filter((l) => l.level === 'error').length, 2)
    t.match(logs[0], { level: 'error', fields: { key: 'k', queue: 'test', requeues: 0 } })
    t.ok(logs[0]?.fields?.err instanceof Error, 'the error itself is logged, for its stack')
    q.shutDown()
    await running
  })

  t.test('requeueAfterMs adds the key again later', async (t) => {
    const { q, clock } = setup()
    let n = 0
    const running = runWorkers(q, 2, async () => {
      n++
      return n < 3 ? { requeueAfterMs: 1000 } : undefined
    })
    q.add('k')
    await settle()
    t.equal(n, 1)
    clock.advance(999)
    await settle()
    t.equal(n, 1)
    clock.advance(1)
    await settle()
    t.equal(n, 2)
    clock.advance(1000)
    await settle()
    t.equal(n, 3)
    clock.advance(10_000)
    await settle()
    t.equal(n, 3, 'no requeue was asked for the third time')
    q.shutDown()
    await running
  })

  t.test('a synchronous throw is handled like a rejection', async (t) => {
    const { q } = setup()
    const running = runWorkers(q, 1, ((): Promise<void> => {
      throw new Error('sync')
    }) as (key: string) => Promise<void>)
    q.add('k')
    await settle()
    t.equal(q.numRequeues('k'), 1)
    q.shutDown()
    await running
  })

  t.test('workers finish the current key and stop when the signal aborts', async (t) => {
    const { q } = setup()
    const ac = new AbortController()
    let release = (): void => {}
    const started: string[] = []
    const finished: string[] = []
    const running = runWorkers(
      q,
      3,
      async (key) => {
        started.push(key)
        await new Promise<void>((r) => (release = r))
        finished.push(key)
      },
      { signal: ac.signal },
    )
    q.add('a')
    await settle()
    ac.abort()
    t.ok(q.isShuttingDown(), 'aborting shuts the queue down')
    let stopped = false
    void running.then(() => (stopped = true))
    await settle()
    t.notOk(stopped, 'the key in flight is not abandoned')
    release()
    await running
    t.strictSame(started, ['a'])
    t.strictSame(finished, ['a'])
    t.equal(q.inFlight(), 0)
  })

  t.test('worker count is clamped to at least one', async (t) => {
    const { q } = setup()
    const seen: string[] = []
    const running = runWorkers(q, 0, async (k) => {
      seen.push(k)
    })
    q.add('a')
    await settle()
    t.strictSame(seen, ['a'])
    q.shutDown()
    await running
  })
})

t.test('real timers: 4 workers never process one key concurrently', async (t) => {
  const q = new WorkQueue<string>({ name: 'concurrency', backoff: { baseMs: 1, maxMs: 8 }, bucket: { qps: 100_000, burst: 100_000 } })
  const keys = Array.from({ length: 50 }, (_, i) => `ns/obj-${i}`)
  const active = new Set<string>()
  const lastAdd = new Map<string, number>()
  const lastStart = new Map<string, number>()
  let violations = 0
  let maxParallel = 0
  let processed = 0
  let seq = 0
  const add = (k: string): void => {
    lastAdd.set(k, ++seq)
    q.add(k)
  }
  const running = runWorkers(q, 4, async (key) => {
    if (active.has(key)) violations++
    active.add(key)
    maxParallel = Math.max(maxParallel, active.size)
    lastStart.set(key, ++seq)
    processed++
    try {
      await new Promise((r) => setTimeout(r, Math.random() * 3))
      // Events keep arriving for the key and others while it is processed.
      if (Math.random() < 0.3) add(key)
      if (Math.random() < 0.3) add(keys[Math.floor(Math.random() * keys.length)] as string)
      await new Promise((r) => setTimeout(r, Math.random() * 2))
      if (Math.random() < 0.1) throw new Error('transient')
    } finally {
      active.delete(key)
    }
  })
  for (let round = 0; round < 10; round++) {
    for (const k of keys) add(k)
    await new Promise((r) => setTimeout(r, 5))
  }
  // Wait until every key has been processed after its last add.
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    const pending = keys.some((k) => (lastStart.get(k) ?? 0) < (lastAdd.get(k) ?? 0))
    if (!pending && q.inFlight() === 0 && q.len() === 0) break
    await new Promise((r) => setTimeout(r, 10))
  }
  await q.shutDownWithDrain()
  await running
  t.equal(violations, 0, 'no key was ever processed by two workers at once')
  t.ok(maxParallel > 1, `work did run in parallel (max ${maxParallel})`)
  t.ok(processed >= keys.length, `processed ${processed} times`)
  const missed = keys.filter((k) => (lastStart.get(k) ?? 0) < (lastAdd.get(k) ?? 0))
  t.strictSame(missed, [], 'every add was followed by a processing run of that key')
})
