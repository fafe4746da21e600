// The correction backoff as a pure state machine: the first drift is corrected
// at once, quick re-drifts wait longer and longer up to the cap unless the
// object stays unwritten for the quiet period, corrections never stop, a fight
// is reported from the threshold on and ends when a correction holds; plus
// simulated writers of every cadence that bound the writes
// (docs/drift-fights.md has the bound and the table these tests hold).

import t from 'tap'
import {
  backoffFor,
  DEFAULT_FIGHT_OPTIONS,
  type FightNotice,
  type FightOptions,
  type FightState,
  fightStep,
  formatDuration,
} from '../../src/apply/fight.ts'

const o: FightOptions = { windowMs: 10_000, threshold: 3, backoffMs: 500, backoffMaxMs: 8_000, quietMs: 3_000 }
const drift = (s: FightState | undefined, now: number, mark = 'm', manager = 'other') =>
  fightStep(s, { type: 'drift', now, manager, mark }, o)
const corrected = (s: FightState | undefined, now: number) => fightStep(s, { type: 'corrected', now }, o)
const calm = (s: FightState | undefined, now: number) => fightStep(s, { type: 'calm', now }, o)
const waitOf = (step: { action: { correct: true } | { correct: false; waitMs: number } | undefined }): number =>
  step.action && !step.action.correct ? step.action.waitMs : 0

t.test('the first drift of an object is corrected at once and remembered only after the correction', async (t) => {
  const first = drift(undefined, 1000)
  t.same(first.action, { correct: true })
  t.equal(first.state, undefined)
  t.equal(first.notice, undefined)
  const after = corrected(first.state, 1000)
  t.match(after.state, { streak: 0, correctedAt: 1000, calmSince: 1000, driftSince: undefined, lastWrite: undefined, conflict: undefined })
  t.equal(after.recheckMs, undefined, 'no fight, nothing to look at later')
  t.equal(after.notice, undefined)
})

t.test('against a writer that keeps writing, the wait is the backoff: backoffMs doubling per quick re-drift up to the cap', async (t) => {
  let s = corrected(undefined, 0).state
  let at = 0
  const delays: number[] = []
  for (let i = 0; i < 8; i++) {
    // The writer changes the object every 100 ms; the reconciler looks at each change.
    let now = at + 100
    let d = drift(s, now, `w${now}`)
    t.equal(d.action?.correct, false, `re-drift ${i + 1} is not corrected at once`)
    const streak = d.state?.streak
    while (!d.action?.correct) {
      // The same object seen again (a status update, a resync) is not a write.
      const again = drift(d.state, now + 50, `w${now}`)
      t.equal(waitOf(again), waitOf(d) - 50, 'the same mark again: the wait runs on')
      t.equal(again.state?.streak, streak, 'looking again does not grow the streak')
      now += 100
      d = drift(d.state, now, `w${now}`)
    }
    delays.push(now - at)
    at = now
    s = corrected(d.state, at).state
  }
  t.same(delays, [500, 1000, 2000, 4000, 8000, 8000, 8000, 8000], 'delays between corrections')
})

t.test('a wait ends once the object has not been written for quietMs, however long the backoff', async (t) => {
  const s: FightState = { streak: 9, correctedAt: 0, driftSince: undefined, calmSince: 0, lastWrite: undefined, conflict: undefined }
  const d = drift(s, 100, 'a')
  t.equal(backoffFor(10, o), 8000)
  t.same(d.action, { correct: false, waitMs: 3000 }, 'due 3 s after the write, not 8 s after the correction')
  t.same(drift(d.state, 2000, 'a').action, { correct: false, waitMs: 1100 }, 'seen again unchanged: due as before')
  const rewritten = drift(d.state, 2000, 'b')
  t.same(rewritten.action, { correct: false, waitMs: 3000 }, 'written again: the quiet period starts over')
  t.same(rewritten.state?.lastWrite, { mark: 'b', at: 2000 })
  t.same(drift(rewritten.state, 4999, 'b').action, { correct: false, waitMs: 1 })
  t.same(drift(rewritten.state, 5000, 'b').action, { correct: true }, 'quiet for 3 s: corrected')
  const back = drift(rewritten.state, 2500, 'a')
  t.same(back.state?.lastWrite, { mark: 'a', at: 2500 }, 'a change back to an earlier content is a write too')
  t.same(drift(rewritten.state, 8000, 'c').action, { correct: true }, 'the backoff still ends the wait when the writer goes on')
})

t.test('the fight is reported from the threshold on, once, naming the latest other manager', async (t) => {
  let s = corrected(undefined, 0).state
  const notices = []
  let now = 0
  for (let i = 1; i <= 5; i++) {
    const d = drift(s, now + 50, 'x', i < 4 ? 'kubectl-edit' : 'hpa')
    notices.push(d.notice)
    now = now + 50 + waitOf(d)
    s = corrected(drift(d.state, now, 'x').state, now).state
    if (i < 3) t.equal(s?.conflict, undefined, `not reported after ${i} quick re-drift(s)`)
    else t.ok(s?.conflict, `reported after ${i}`)
  }
  t.same(notices[2], { kind: 'conflict', manager: 'kubectl-edit', streak: 3, nextInMs: 2000 - 50 })
  t.equal(notices.filter((n) => n?.kind === 'conflict').length, 1, 'one conflict notice for the whole fight')
  t.equal(s?.conflict?.manager, 'hpa', 'the manager follows the latest writer')
  const fresh: FightState = { streak: 5, correctedAt: 0, driftSince: undefined, calmSince: 0, lastWrite: undefined, conflict: undefined }
  t.same(
    drift(fresh, 100).notice,
    { kind: 'conflict', manager: 'other', streak: 6, nextInMs: 3000 },
    'the next correction announced is the earlier of the backoff and the quiet period',
  )
})

t.test('a correction after a backoff says how long it waited', async (t) => {
  let s = corrected(undefined, 0).state
  s = drift(s, 100, 'm', 'x').state
  const c = corrected(s, 500)
  t.same(c.notice, { kind: 'resumed', manager: undefined, waitedMs: 400 })
  t.equal(c.state?.lastWrite, undefined, 'the write is forgotten with the drift it made')
  t.equal(corrected(drift(undefined, 0).state, 0).notice, undefined, 'no notice for an immediate correction')
})

t.test('a reported fight ends when the object stays as rendered for windowMs after the correction', async (t) => {
  let s: FightState | undefined = {
    streak: 4,
    correctedAt: 50_000,
    driftSince: undefined,
    calmSince: 50_000,
    lastWrite: undefined,
    conflict: { manager: 'm', since: 1 },
  }
  const c = corrected({ ...s, driftSince: 49_000, calmSince: undefined, lastWrite: { mark: 'x', at: 49_000 } }, 50_000)
  t.equal(c.recheckMs, 10_000, 'look again after the window')
  const early = calm(s, 55_000)
  t.equal(early.recheckMs, 5000, 'not yet: look again when the window is over')
  t.ok(early.state?.conflict, 'still reported')
  const end = calm(early.state, 60_000)
  t.equal(end.state, undefined, 'nothing left to remember')
  t.same(end.notice, { kind: 'ended', manager: 'm', calmMs: 10_000 })
  s = corrected(undefined, 0).state
  t.same(calm(s, 10_000), { state: undefined, action: undefined, recheckMs: undefined, notice: undefined }, 'no notice without a fight')
})

t.test('calm after a drift that someone else undid starts the calm period then', async (t) => {
  let s = corrected(undefined, 0).state
  s = drift(s, 100).state
  const c = calm(s, 300)
  t.match(c.state, { driftSince: undefined, calmSince: 300, streak: 1, lastWrite: undefined })
  t.match(drift(c.state, 400).state, { streak: 2, driftSince: 400 }, 'drifting again is the next quick re-drift')
})

t.test('a drift long after the last correction is an ordinary edit: corrected at once, the streak forgotten', async (t) => {
  const s: FightState = {
    streak: 6,
    correctedAt: 0,
    driftSince: undefined,
    calmSince: 0,
    lastWrite: undefined,
    conflict: { manager: 'm', since: 0 },
  }
  const d = drift(s, 10_000)
  t.same(d.action, { correct: true })
  t.equal(d.state, undefined)
  t.same(d.notice, { kind: 'ended', manager: 'm', calmMs: 10_000 })
  t.equal(corrected(d.state, 10_000).state?.streak, 0)
})

t.test('a long backoff is waited out, even past the window, while the writer goes on writing', async (t) => {
  const long: FightOptions = { ...o, backoffMaxMs: 60_000 }
  const s: FightState = {
    streak: 7,
    correctedAt: 0,
    driftSince: 100,
    calmSince: undefined,
    lastWrite: { mark: 'a', at: 100 },
    conflict: { manager: 'm', since: 0 },
  }
  let step = fightStep(s, { type: 'drift', now: 2_000, manager: 'm', mark: 'b' }, long)
  for (let now = 4_000; now <= 30_000; now += 2_000) {
    t.equal(step.action?.correct, false, `still waiting at ${now - 2_000}`)
    step = fightStep(step.state, { type: 'drift', now, manager: 'm', mark: `b${now}` }, long)
  }
  t.same(fightStep(step.state, { type: 'drift', now: 31_000, manager: 'm', mark: 'b30000' }, long).action, {
    correct: false,
    waitMs: 1000,
  })
  t.same(fightStep(step.state, { type: 'drift', now: 32_000, manager: 'm', mark: 'c' }, long).action, { correct: true })
})

t.test('backoffFor is 0 without a streak and never overflows', async (t) => {
  t.equal(backoffFor(0, o), 0)
  t.equal(backoffFor(1, o), 500)
  t.equal(backoffFor(5000, o), 8000)
  t.equal(backoffFor(5000, DEFAULT_FIGHT_OPTIONS), 300_000)
})

// ---- Simulated writers -------------------------------------------------------

/** Another writer, as the object shows it: when it changes the object. */
interface Writer {
  readonly name: string
  /**
   * Its next write after its last one (undefined before its first), given our
   * last correction; undefined once it has stopped.
   */
  next(lastWrite: number | undefined, lastCorrection: number | undefined, writes: number): number | undefined
  /**
   * True when each write stores a new value (a counter, a timestamp, a second
   * value). False when it writes the same value each time: a write to an
   * object that already holds it changes nothing, and nothing sees it.
   */
  readonly newValueEachTime: boolean
}

/** Writes every n ms from 0 until `until`. */
const every = (n: number, opts: { until?: number; newValueEachTime?: boolean } = {}): Writer => ({
  name: `every ${n} ms${opts.newValueEachTime === false ? ', same value' : ''}`,
  newValueEachTime: opts.newValueEachTime ?? true,
  next: (last) => {
    const at = last === undefined ? 0 : last + n
    return at < (opts.until ?? Infinity) ? at : undefined
  },
})

/** Writes at 0, then `reactMs` after each of our corrections: `count` times in all, or until `until`. */
const after = (reactMs: number, opts: { count?: number; until?: number } = {}): Writer => ({
  name: `${reactMs} ms after each correction`,
  newValueEachTime: false,
  next: (last, corr, writes) => {
    if (writes >= (opts.count ?? Infinity)) return undefined
    if (last === undefined) return 0
    const at = corr !== undefined && corr >= last ? corr + reactMs : undefined
    return at !== undefined && at < (opts.until ?? Infinity) ? at : undefined
  },
})

/** A writer with random gaps (a seeded generator), around the quiet period and the backoff steps. */
function random(seed: number, until: number): Writer {
  let x = seed
  const rnd = (): number => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31
    return x / 2 ** 31
  }
  const gaps = [50, 400, 900, 1_900, 2_900, 3_000, 3_100, 6_000, 9_900, 10_100]
  return {
    name: `random gaps, seed ${seed}`,
    newValueEachTime: true,
    next: (last) => {
      const at = last === undefined ? 0 : last + (gaps[Math.floor(rnd() * gaps.length)] ?? 0) + Math.floor(rnd() * 200)
      return at < until ? at : undefined
    },
  }
}

interface Run {
  /** The writer's changes of the object. */
  readonly writes: readonly number[]
  /** Our corrections. */
  readonly corrections: readonly number[]
  readonly notices: readonly { readonly at: number; readonly notice: FightNotice }[]
  /** Whether the object is as rendered when the run ends. */
  readonly rendered: boolean
}

/**
 * The reconciler against one writer: it looks when the object changes and
 * when a wait or a recheck it asked for is over, as record.wake does, with no
 * delay of its own (the watch, the pass and the apply take time on a real
 * cluster: that is the 1 s after the quiet period).
 */
function simulate(opts: FightOptions, writer: Writer, untilMs: number): Run {
  const writes: number[] = []
  const corrections: number[] = []
  const notices: { at: number; notice: FightNotice }[] = []
  let s: FightState | undefined
  let drifted = false
  let wakeAt: number | undefined
  const wake = (at: number): void => {
    wakeAt = Math.min(wakeAt ?? Infinity, at)
  }
  const look = (now: number): void => {
    const st = drifted
      ? fightStep(s, { type: 'drift', now, manager: 'writer', mark: writer.newValueEachTime ? `v${writes.length}` : 'v' }, opts)
      : fightStep(s, { type: 'calm', now }, opts)
    if (st.notice) notices.push({ at: now, notice: st.notice })
    s = st.state
    if (st.recheckMs !== undefined) wake(now + st.recheckMs)
    if (st.action && !st.action.correct) wake(now + st.action.waitMs)
    if (st.action?.correct) {
      const c = fightStep(s, { type: 'corrected', now }, opts)
      if (c.notice) notices.push({ at: now, notice: c.notice })
      s = c.state
      drifted = false
      corrections.push(now)
      if (c.recheckMs !== undefined) wake(now + c.recheckMs)
    }
  }
  for (;;) {
    const w = writer.next(writes.at(-1), corrections.at(-1), writes.length)
    const now = Math.min(w ?? Infinity, wakeAt ?? Infinity)
    if (now >= untilMs) break
    const woke = wakeAt === now
    if (woke) wakeAt = undefined
    if (w === now) {
      writes.push(now)
      // A write of the same value to a drifted object is no change: no event, nothing to see.
      if (writer.newValueEachTime || !drifted) drifted = true
      else if (!woke) continue
    }
    look(now)
  }
  return { writes, corrections, notices, rendered: !drifted }
}

/** The most corrections in any 60 s of the run (windows starting at each correction). */
function busiestMinute(corrections: readonly number[]): number {
  let most = 0
  for (let i = 0; i < corrections.length; i++) {
    let n = 0
    for (let j = i; j < corrections.length && (corrections[j] ?? 0) < (corrections[i] ?? 0) + 60_000; j++) n++
    most = Math.max(most, n)
  }
  return most
}

/**
 * The documented bound on corrections in any 60 s against a writer that
 * changes the object every n ms: the backoff's 7 while it writes more often
 * than the quiet period, else one per write.
 */
function boundEvery(n: number, f: FightOptions): number {
  return n < f.quietMs ? 7 : Math.ceil(60_000 / n) + 1
}

/**
 * The documented bound for any writer: corrections are at least
 * min(backoffFor(k), quietMs) apart, k the quick re-drifts so far; the most
 * that fit in 60 s is this schedule's count from a fight's start.
 */
function boundAny(f: FightOptions): number {
  let at = 0
  let n = 1
  for (let k = 1; ; k++) {
    at += Math.min(backoffFor(k, f), f.quietMs)
    if (at >= 60_000) return n
    n++
  }
}

const D = DEFAULT_FIGHT_OPTIONS
const cadences = [100, 200, 500, 1_000, 2_000, 5_000, 10_000, 30_000]
const TEN_MINUTES = 10 * 60_000

t.test('the bounds for the defaults, as docs/drift-fights.md states them', async (t) => {
  t.equal(D.quietMs, 3_000)
  t.same(
    cadences.map((n) => boundEvery(n, D)),
    [7, 7, 7, 7, 7, 13, 7, 3],
  )
  t.equal(boundAny(D), 22)
})

t.test('a 10 Hz fighter with the default options: 7 writes in the first minute, then at most one per cap', async (t) => {
  const run = simulate(D, every(100), 30 * 60_000)
  t.same(
    run.corrections.filter((w) => w < 60_000),
    [0, 500, 1500, 3500, 7500, 15_500, 31_500],
    'the schedule of the first minute',
  )
  t.equal(busiestMinute(run.corrections), 7, 'no 60 s hold more than 7')
  const gaps = run.corrections.slice(1).map((w, i) => w - (run.corrections[i] ?? 0))
  t.ok(
    gaps.every((g) => g <= D.backoffMaxMs + 100),
    'corrections never stop: never more than the cap (plus one write) apart',
  )
  t.equal(run.corrections.length, 15, 'in 30 minutes')
  t.match(
    run.notices.find((n) => n.notice.kind === 'conflict'),
    { at: 1600, notice: { manager: 'writer', streak: 3 } },
    'reported as a fight from the third quick re-drift',
  )
})

t.test('a writer changing the object every N s costs at most the bound per minute, for 10 minutes', async (t) => {
  for (const n of cadences) {
    const run = simulate(D, every(n), TEN_MINUTES)
    const first = run.corrections.filter((c) => c < 60_000).length
    const most = busiestMinute(run.corrections)
    t.comment(
      `every ${n / 1000} s: ${run.writes.filter((w) => w < 60_000).length} writes, ${first} corrections in the first minute, at most ${most} in any minute`,
    )
    t.ok(most <= boundEvery(n, D), `every ${n} ms: ${most} corrections in the busiest minute, bound ${boundEvery(n, D)}`)
    t.ok(first >= Math.min(7, Math.floor(60_000 / n)), `every ${n} ms: corrections go on (${first} in the first minute)`)
  }
})

t.test(
  'a writer that writes the same value every N s, or answers each correction after N s, stays within the bound for any writer',
  async (t) => {
    for (const n of cadences) {
      for (const writer of [every(n, { newValueEachTime: false }), after(n)]) {
        const run = simulate(D, writer, TEN_MINUTES)
        const first = run.corrections.filter((c) => c < 60_000).length
        const most = busiestMinute(run.corrections)
        t.comment(`${writer.name}: ${first} corrections in the first minute, at most ${most} in any minute`)
        t.ok(most <= boundAny(D), `${writer.name}: ${most} in the busiest minute, bound ${boundAny(D)}`)
      }
    }
    for (let seed = 1; seed <= 20; seed++) {
      const run = simulate(D, random(seed, TEN_MINUTES), TEN_MINUTES)
      const most = busiestMinute(run.corrections)
      if (most > boundAny(D)) t.fail(`random seed ${seed}: ${most} corrections in a minute`)
      if (run.corrections.length > run.writes.length) t.fail(`random seed ${seed}: more corrections than writes`)
    }
  },
)

t.test('after 10 minutes of any fight, the rendered state is back quietMs after the writer stops', async (t) => {
  const writers = [
    ...cadences.map((n) => every(n, { until: TEN_MINUTES })),
    every(100, { until: TEN_MINUTES, newValueEachTime: false }),
    after(100, { until: TEN_MINUTES }),
    random(7, TEN_MINUTES),
  ]
  for (const writer of writers) {
    const run = simulate(D, writer, TEN_MINUTES + 5 * 60_000)
    const last = run.writes.at(-1) ?? 0
    const restored = run.corrections.at(-1) ?? 0
    t.ok(run.rendered, `${writer.name}: the rendered state stands at the end`)
    t.ok(
      restored >= last && restored - last <= D.quietMs,
      `${writer.name}: last write at ${last} ms, back at ${restored} ms (${restored - last} ms later)`,
    )
  }
})

t.test('a person editing 20 times, each 200 ms after our correction, then stopping: back quietMs after the last edit', async (t) => {
  const run = simulate(D, after(200, { count: 20 }), 5 * 60_000)
  t.equal(run.writes.length, 20)
  t.equal(run.corrections.length, 20, 'every edit reverted, once')
  const delays = run.writes.map((w, i) => (run.corrections[i] ?? Infinity) - w)
  t.comment(`corrections at (s): ${run.corrections.map((c) => c / 1000).join(' ')}`)
  t.ok(
    delays.every((d) => d >= 0 && d <= D.quietMs),
    `each edit reverted within the quiet period (${Math.max(...delays)} ms at most)`,
  )
  t.equal(delays.at(-1), D.quietMs, 'the last edit stands for the quiet period: the backoff had grown past it')
  t.ok(busiestMinute(run.corrections) <= boundAny(D))
  const conflict = run.notices.find((n) => n.notice.kind === 'conflict')
  t.match(conflict?.notice, { kind: 'conflict', manager: 'writer', streak: 3 }, 'reported as a fight from the third quick re-drift')
  const ended = run.notices.find((n) => n.notice.kind === 'ended')
  t.equal(ended?.at, (run.corrections.at(-1) ?? 0) + D.windowMs, 'over once the last correction held for the window')
})

t.test(
  'a person repeating an edit 200 ms after each revert, 20 times, with a 1 s cap: every edit is reverted within the cap',
  async (t) => {
    const opts: FightOptions = { ...D, backoffMaxMs: 1000 }
    const run = simulate(opts, after(200, { count: 20 }), 60_000)
    const delays = run.writes.map((w, i) => (run.corrections[i] ?? Infinity) - w)
    t.ok(
      delays.every((d) => d <= opts.backoffMaxMs),
      `every edit reverted within the cap (${Math.max(...delays)} ms)`,
    )
    t.match(run.notices.find((n) => n.notice.kind === 'conflict')?.notice, { manager: 'writer' }, 'reported as a fight with the person')
    t.equal(run.notices.at(-1)?.notice.kind, 'ended', 'over once the last revert held for the window')
  },
)

t.test('formatDuration', async (t) => {
  const cases: [number, string][] = [
    [0, '0ms'],
    [400, '400ms'],
    [1000, '1s'],
    [2500, '2.5s'],
    [59_949, '59.9s'],
    [59_990, '1m'],
    [90_000, '1m30s'],
    [300_000, '5m'],
  ]
  for (const [ms, want] of cases) t.equal(formatDuration(ms), want, `${ms} ms`)
})
