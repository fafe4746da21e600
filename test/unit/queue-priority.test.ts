// Priorities in the work queue, with controller-runtime's priority-queue
// semantics: higher first and first-in first-out within a priority, a key keeps
// the highest priority it was added with (a raise moves it to the back of the
// new priority), in-flight and delayed keys keep theirs, rate limiting is per
// key whatever the priority, the workers requeue at the priority they took, and
// the metrics show depth and waiting time by priority.

import t from 'tap'
import { WorkQueue, PRIORITY } from '../../src/controller/queue.ts'
import { runWorkers } from '../../src/controller/workers.ts'
import { MetricsRegistry } from '../../src/telemetry/metrics.ts'
import { ManualClock } from './queue-clock.ts'

function setup(opts: { backoff?: { baseMs?: number; maxMs?: number } } = {}): {
  q: WorkQueue<string>
  clock: ManualClock
  registry: MetricsRegistry
} {
  const clock = new ManualClock()
  const registry = new MetricsRegistry()
  return { q: new WorkQueue<string>({ name: 'test', clock, registry, ...opts }), clock, registry }
}

/** Takes every ready key with its priority, in order, marking each done. */
async function drain(q: WorkQueue<string>): Promise<string[]> {
  const out: string[] = []
  while (q.len() > 0) {
    const item = await q.getWithPriority()
    if (item === undefined) break
    out.push(`${item.key}@${item.priority}`)
    q.done(item.key)
  }
  return out
}

const settle = (): Promise<void> => new Promise((r) => setImmediate(r))

t.test('higher priorities first, first-in first-out within one', async (t) => {
  const { q } = setup()
  q.add('low1', PRIORITY.low)
  q.add('n1')
  q.add('d1', PRIORITY.drift)
  q.add('low2', PRIORITY.low)
  q.add('d2', PRIORITY.drift)
  q.add('n2', PRIORITY.normal)
  t.equal(q.len(), 6)
  t.strictSame(await drain(q), ['d1@10', 'd2@10', 'n1@0', 'n2@0', 'low1@-100', 'low2@-100'])
})

t.test('a correction added behind 2,000 queued re-renders is handed out next', async (t) => {
  const { q } = setup()
  for (let i = 0; i < 2000; i++) q.add(`render-${i}`, PRIORITY.low)
  t.equal((await q.getWithPriority())?.key, 'render-0', 'a worker took the first re-render')
  q.add('fix', PRIORITY.drift)
  t.strictSame(await q.getWithPriority(), { key: 'fix', priority: PRIORITY.drift })
  t.equal(q.len(), 1999, 'the re-renders are all still queued')
})

t.test('a key keeps its highest priority; a raise moves it to the back of the new priority', async (t) => {
  const { q } = setup()
  q.add('a', PRIORITY.low)
  q.add('b', PRIORITY.low)
  q.add('c', PRIORITY.drift)
  q.add('a', PRIORITY.drift)
  q.add('a', PRIORITY.low)
  q.add('a', PRIORITY.normal)
  t.equal(q.len(), 3, 'a raise does not count a key twice')
  t.equal((await q.metrics()).adds, 3, 'nor as another add')
  t.strictSame(await drain(q), ['c@10', 'a@10', 'b@-100'], 'a came out once, after c, at its highest priority')
})

t.test('a key re-added while in flight is queued again at the highest priority it was added with', async (t) => {
  const { q } = setup()
  q.add('a', PRIORITY.low)
  q.add('b', PRIORITY.normal)
  t.strictSame(await q.getWithPriority(), { key: 'b', priority: PRIORITY.normal })
  q.add('b', PRIORITY.low)
  q.add('b', PRIORITY.drift)
  q.add('b', PRIORITY.normal)
  t.equal(q.len(), 1, 'in flight, b is not ready')
  t.strictSame((await q.metrics()).depthByPriority, { '-100': 1, '0': 0, '10': 1 }, 'but pending at the raised priority')
  let second: string | undefined
  void q.getWithPriority().then((i) => (second = `${i?.key}@${i?.priority}`))
  await settle()
  t.equal(second, 'a@-100', 'a waiting worker takes what is ready')
  q.done('a')
  q.done('b')
  t.strictSame(await drain(q), ['b@10'])
})

t.test('delayed adds keep the earlier time and the higher priority', async (t) => {
  const { q, clock } = setup()
  q.add('x', PRIORITY.normal)
  q.addAfter('a', 100, PRIORITY.low)
  q.addAfter('a', 300, PRIORITY.drift)
  q.addAfter('b', 300, PRIORITY.low)
  q.addAfter('b', 100, PRIORITY.drift)
  q.addAfter('c', 100, PRIORITY.drift)
  q.addAfter('c', 50, PRIORITY.low)
  clock.advance(99)
  t.equal(q.len(), 2, 'of the delayed keys only c is due before 100 ms')
  t.strictSame(await drain(q), ['c@10', 'x@0'], 'c is due at 50 ms and kept its higher priority')
  clock.advance(1)
  t.strictSame(await drain(q), ['a@10', 'b@10'], 'a and b are due at 100 ms, both at the higher priority, in the order they became ready')
  clock.advance(1000)
  t.equal(q.len(), 0, 'the superseded later times do not fire')
})

t.test('a delayed key that becomes ready takes its place among the keys of its priority', async (t) => {
  const { q, clock } = setup()
  q.addAfter('late', 10, PRIORITY.low)
  q.add('early', PRIORITY.low)
  q.add('n', PRIORITY.normal)
  clock.advance(10)
  t.strictSame(await drain(q), ['n@0', 'early@-100', 'late@-100'])
})

t.test('rate limiting is per key, whatever the priority, and keeps the priority', async (t) => {
  const { q, clock } = setup({ backoff: { baseMs: 10, maxMs: 1000 } })
  q.addRateLimited('a', PRIORITY.drift)
  q.addRateLimited('b', PRIORITY.low)
  clock.advance(10)
  t.strictSame(await drain(q), ['a@10', 'b@-100'])
  q.addRateLimited('a', PRIORITY.drift)
  clock.advance(19)
  t.equal(q.len(), 0, 'the second failure of a waits 20 ms')
  clock.advance(1)
  t.strictSame(await drain(q), ['a@10'])
  t.equal(q.numRequeues('a'), 2)
  t.equal(q.numRequeues('b'), 1)
  q.forget('a')
  q.addRateLimited('a', PRIORITY.low)
  clock.advance(10)
  t.strictSame(await drain(q), ['a@-100'], 'after forget, back to the base delay')
})

t.test('the workers requeue at the priority they took the key with', async (t) => {
  const { q, clock } = setup({ backoff: { baseMs: 10, maxMs: 10 } })
  const seen: string[] = []
  let fail = true
  let release: () => void = () => {}
  const gate = new Promise<void>((r) => (release = r))
  const ac = new AbortController()
  const running = runWorkers(
    q,
    1,
    async (key) => {
      seen.push(key)
      if (key === 'bulk-0') await gate
      if (key === 'fails' && fail) {
        fail = false
        throw new Error('boom')
      }
      return key === 'recheck' && seen.filter((k) => k === 'recheck').length === 1 ? { requeueAfterMs: 5 } : {}
    },
    { signal: ac.signal },
  )
  q.add('fails', PRIORITY.drift)
  q.add('recheck', PRIORITY.low)
  await settle()
  t.strictSame(seen, ['fails', 'recheck'])
  t.strictSame((await q.metrics()).depthByPriority, { '10': 0, '-100': 0 }, 'both wait in the delay heap, not in the queue')
  for (let i = 0; i < 200; i++) q.add(`bulk-${i}`, PRIORITY.normal)
  await settle()
  t.equal(seen.at(-1), 'bulk-0', 'the worker is busy with the first normal key')
  clock.advance(10)
  t.strictSame((await q.metrics()).depthByPriority, { '10': 1, '0': 199, '-100': 1 }, 'the retry and the recheck are due')
  release()
  for (let i = 0; i < 10 && q.len() > 0; i++) await settle()
  t.equal(q.len(), 0)
  t.equal(seen[3], 'fails', 'the failed correction came back ahead of the 199 normal keys')
  t.equal(seen.at(-1), 'recheck', 'the low-priority recheck came back behind them')
  t.equal(seen.length, 2 + 200 + 2)
  ac.abort()
  await running
})

t.test('metrics by priority', async (t) => {
  const { q, clock, registry } = setup()
  q.add('a', PRIORITY.low)
  q.add('b', PRIORITY.low)
  q.add('c', PRIORITY.drift)
  t.strictSame((await q.metrics()).depthByPriority, { '-100': 2, '10': 1 })
  t.equal((await q.metrics()).depth, 3)
  let text = await registry.render()
  t.match(text, /^workqueue_depth_by_priority\{name="test",priority="-100"\} 2$/m)
  t.match(text, /^workqueue_depth_by_priority\{name="test",priority="10"\} 1$/m)
  t.match(text, /^workqueue_depth\{name="test"\} 3$/m, 'the total is kept as before')
  clock.advance(5)
  await q.get() // c waited 5 ms
  clock.advance(45)
  await q.get() // a waited 50 ms
  const m = await q.metrics()
  t.strictSame(m.depthByPriority, { '-100': 1, '10': 0 })
  t.equal(m.latencyByPriorityMs['10']?.count, 1)
  t.equal(m.latencyByPriorityMs['10']?.sumMs, 5)
  t.equal(m.latencyByPriorityMs['-100']?.count, 1)
  t.equal(m.latencyByPriorityMs['-100']?.sumMs, 50)
  t.equal(m.latencyMs.count, 2, 'the overall histogram counts both')
  text = await registry.render()
  t.match(text, /^workqueue_queue_duration_by_priority_seconds_count\{name="test",priority="10"\} 1$/m)
  t.match(text, /^workqueue_queue_duration_by_priority_seconds_bucket\{le="0\.005",name="test",priority="10"\} 1$/m)
  t.match(text, /^workqueue_queue_duration_by_priority_seconds_bucket\{le="0\.025",name="test",priority="-100"\} 0$/m)

  q.shutDown()
  t.strictSame((await q.metrics()).depthByPriority, { '-100': 0, '10': 0 }, 'a shut-down queue holds nothing')
  q.dispose()
  text = await registry.render()
  t.notMatch(text, /name="test"/, 'dispose removes every series of the queue')
})

t.test('a priority must be an integer', async (t) => {
  const { q } = setup()
  t.throws(() => q.add('a', 1.5), /priority must be an integer, got 1.5/)
  t.throws(() => q.addAfter('a', 10, Number.NaN), /priority must be an integer, got NaN/)
  t.equal(q.len(), 0, 'nothing was queued')
})

t.test('random adds, raises, gets and dones match a reference model', async (t) => {
  let seed = 5
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return Math.floor(seed / 65536) % n
  }
  const { q } = setup()
  // The model: pending key -> [priority, order], in-flight keys, and a counter for the order.
  const pending = new Map<string, [number, number]>()
  const inFlight = new Set<string>()
  let counter = 0
  const priorities = [PRIORITY.low, PRIORITY.normal, PRIORITY.drift, 3]
  let mismatches = 0
  for (let step = 0; step < 5000; step++) {
    const op = rand(10)
    if (op < 6) {
      const key = `k${rand(30)}`
      const p = priorities[rand(priorities.length)] as number
      q.add(key, p)
      const cur = pending.get(key)
      if (!cur) pending.set(key, [p, inFlight.has(key) ? -1 : counter++])
      else if (p > cur[0]) cur.splice(0, 2, p, cur[1] === -1 ? -1 : counter++)
    } else if (op < 8) {
      const ready = [...pending].filter(([k]) => !inFlight.has(k))
      if (ready.length === 0) continue
      ready.sort((a, b) => b[1][0] - a[1][0] || a[1][1] - b[1][1])
      const [key, [p]] = ready[0] as [string, [number, number]]
      const got = await q.getWithPriority()
      if (got?.key !== key || got.priority !== p) mismatches++
      pending.delete(key)
      inFlight.add(key)
    } else {
      const keys = [...inFlight]
      if (keys.length === 0) continue
      const key = keys[rand(keys.length)] as string
      q.done(key)
      inFlight.delete(key)
      const cur = pending.get(key)
      if (cur) cur[1] = counter++
    }
    if (q.len() !== [...pending.keys()].filter((k) => !inFlight.has(k)).length || (await q.metrics()).depth !== pending.size) mismatches++
  }
  t.equal(mismatches, 0)
})
