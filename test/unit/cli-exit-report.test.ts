// The one-line reports of `template-sync local`: how a process ended, what its
// last output says went wrong, and an escaped error with its causes.

import t from 'tap'
import { describeError, describeExit, formatSeconds, lastProblem } from '../../src/cli/exit-report.ts'
import { LOCAL_RESTART_POLICY, planRestart } from '../../src/cli/restart-policy.ts'

t.test('describeExit names the code or the signal', async (t) => {
  t.equal(describeExit(1, null), 'exited with code 1')
  t.equal(describeExit(0, null), 'exited with code 0')
  t.equal(describeExit(null, 'SIGKILL'), 'was killed by SIGKILL')
  t.equal(describeExit(null, null), 'exited with code unknown')
})

t.test('formatSeconds: tenths below ten seconds, when there are any', async (t) => {
  t.equal(formatSeconds(100), '0.1 s')
  t.equal(formatSeconds(1000), '1 s')
  t.equal(formatSeconds(1500), '1.5 s')
  t.equal(formatSeconds(42_400), '42 s')
})

const pino = (level: number, msg: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ level, time: '2026-01-01T00:00:00Z', pid: 1, msg, ...extra })

t.test('lastProblem takes the last error-level log line, with its error message', async (t) => {
  const lines = [
    pino(50, 'first failure'),
    pino(30, 'became leader'),
    pino(50, 'lost the leader lease; stopping all work and exiting'),
    pino(30, 'shutting down'),
  ]
  t.equal(lastProblem(lines), 'lost the leader lease; stopping all work and exiting')
  t.equal(
    lastProblem([pino(60, 'webhook failed to start', { err: { message: 'EADDRINUSE 127.0.0.1:9443' } })]),
    'webhook failed to start: EADDRINUSE 127.0.0.1:9443',
  )
})

t.test('lastProblem falls back to the Error line of a Node crash on stderr', async (t) => {
  const crash = [
    'file:///x.ts:3',
    '  throw new TypeError("x is not a function")',
    '        ^',
    '',
    'TypeError: x is not a function',
    '    at main (file:///x.ts:3:9)',
    'Node.js v24.21.0',
  ]
  t.equal(lastProblem(crash), 'TypeError: x is not a function')
})

t.test('lastProblem says nothing when no line reports a problem', async (t) => {
  t.equal(lastProblem([]), undefined)
  t.equal(
    lastProblem([pino(30, 'caches synced; starting workers'), pino(40, 'watch restarted')]),
    undefined,
    'info and warn lines are not the cause',
  )
  t.equal(lastProblem(['plain text']), undefined)
})

t.test('lastProblem clips a long message', async (t) => {
  const got = lastProblem([pino(50, 'x'.repeat(1000))]) ?? ''
  t.equal(got.length, 240)
  t.ok(got.endsWith('...'))
})

t.test('describeError: name and message, every cause, then the first frames', async (t) => {
  const root = new Error('connect ECONNREFUSED 127.0.0.1:6443')
  const mid = new Error('cannot list templates', { cause: root })
  const top = new TypeError('reconcile failed', { cause: mid })
  const lines = describeError(top)
  t.equal(lines[0], 'TypeError: reconcile failed')
  t.equal(lines[1], '  caused by Error: cannot list templates')
  t.equal(lines[2], '  caused by Error: connect ECONNREFUSED 127.0.0.1:6443')
  t.ok(lines.slice(3).length > 0 && lines.slice(3).every((l) => l.startsWith('  at ')), 'stack frames follow')
  t.ok(lines.length <= 3 + 6, 'at most six frames')
  t.strictSame(describeError('a string'), ['a string'])
  t.match(describeError(new Error('x', { cause: { code: 42 } }))[1], /caused by \[object Object\]/)
})

t.test('describeError stops at a cause cycle', async (t) => {
  const a = new Error('a')
  const b = new Error('b', { cause: a })
  a.cause = b
  t.equal(describeError(a).filter((l) => l.includes('caused by')).length, 1)
})

t.test('restart back-off doubles per quick failure up to the cap and resets after a healthy run', async (t) => {
  const policy = { initialMs: 1000, maxMs: 5000, resetAfterMs: 60_000 }
  let streak = 0
  const delays: number[] = []
  for (let i = 0; i < 5; i++) {
    const plan = planRestart(policy, streak, 2000)
    streak = plan.streak
    delays.push(plan.delayMs)
  }
  t.strictSame(delays, [1000, 2000, 4000, 5000, 5000])
  t.strictSame(planRestart(policy, streak, 60_000), { streak: 1, delayMs: 1000 }, 'a run of a minute counts as healthy')
  t.strictSame(
    LOCAL_RESTART_POLICY,
    { initialMs: 1000, maxMs: 30_000, resetAfterMs: 60_000 },
    'the figures docs/local-supervision.md states',
  )
})
