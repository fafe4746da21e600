// The correction backoff as a pure state machine: the first drift is corrected
// at once, quick re-drifts wait longer and longer up to the cap, corrections
// never stop, a fight is reported from the threshold on and ends when a
// correction holds; plus simulated fighters that bound the writes.

import t from 'tap'
import {
  backoffFor,
  DEFAULT_FIGHT_OPTIONS,
  fightStep,
  formatDuration,
  pendingWait,
  type FightOptions,
  type FightState,
} from '../../src/apply/fight.ts'

const o: FightOptions = { windowMs: 10_000, threshold: 3, backoffMs: 500, backoffMaxMs: 8_000 }
const drift = (s: FightState | undefined, now: number, manager = 'other') => fightStep(s, { type: 'drift', now, manager }, o)
const corrected = (s: FightState | undefined, now: number) => fightStep(s, { type: 'corrected', now }, o)
const calm = (s: FightState | undefined, now: number) => fightStep(s, { type: 'calm', now }, o)

t.test('the first drift of an object is corrected at once and remembered only after the correction', async (t) => {
  const first = drift(undefined, 1000)
  t.same(first.action, { correct: true })
  t.equal(first.state, undefined)
  t.equal(first.notice, undefined)
  const after = corrected(first.state, 1000)
  t.match(after.state, { streak: 0, correctedAt: 1000, calmSince: 1000, driftSince: undefined, conflict: undefined })
  t.equal(after.recheckMs, undefined, 'no fight, nothing to look at later')
  t.equal(after.notice, undefined)
})

t.test('a quick re-drift waits backoffMs from the correction; the wait doubles per quick re-drift up to the cap', async (t) => {
  let s = corrected(undefined, 0).state
  let at = 0
  const waits: number[] = []
  for (let i = 0; i < 8; i++) {
    const seen = at + 100
    const d = drift(s, seen)
    t.equal(d.action?.correct, false, `re-drift ${i + 1} is not corrected at once`)
    const wait = d.action && !d.action.correct ? d.action.waitMs : -1
    waits.push(wait + 100)
    s = d.state
    t.equal(pendingWait(s, seen, o), wait, 'pendingWait agrees with the step')
    // Looking again before the time is still a wait, and does not grow the streak.
    const early = drift(s, seen + wait - 1)
    t.same(early.action, { correct: false, waitMs: 1 })
    t.equal(early.state?.streak, s?.streak)
    const due = drift(s, seen + wait)
    t.same(due.action, { correct: true }, 'corrected when the wait is over')
    at = seen + wait
    s = corrected(due.state, at).state
  }
  t.same(waits, [500, 1000, 2000, 4000, 8000, 8000, 8000, 8000], 'delays between corrections')
})

t.test('the fight is reported from the threshold on, once, naming the latest other manager', async (t) => {
  let s = corrected(undefined, 0).state
  const notices = []
  let now = 0
  for (let i = 1; i <= 5; i++) {
    const d = drift(s, now + 50, i < 4 ? 'kubectl-edit' : 'hpa')
    notices.push(d.notice)
    const wait = d.action && !d.action.correct ? d.action.waitMs : 0
    now = now + 50 + wait
    s = corrected(drift(d.state, now).state, now).state
    if (i < 3) t.equal(s?.conflict, undefined, `not reported after ${i} quick re-drift(s)`)
    else t.ok(s?.conflict, `reported after ${i}`)
  }
  t.same(notices[2], { kind: 'conflict', manager: 'kubectl-edit', streak: 3, nextInMs: 2000 - 50 })
  t.equal(notices.filter((n) => n?.kind === 'conflict').length, 1, 'one conflict notice for the whole fight')
  t.equal(s?.conflict?.manager, 'hpa', 'the manager follows the latest writer')
})

t.test('a correction after a backoff says how long it waited', async (t) => {
  let s = corrected(undefined, 0).state
  s = drift(s, 100, 'x').state
  const c = corrected(s, 500)
  t.same(c.notice, { kind: 'resumed', manager: undefined, waitedMs: 400 })
  t.equal(corrected(drift(undefined, 0).state, 0).notice, undefined, 'no notice for an immediate correction')
})

t.test('a reported fight ends when the object stays as rendered for windowMs after the correction', async (t) => {
  let s: FightState | undefined = {
    streak: 4,
    correctedAt: 50_000,
    driftSince: undefined,
    calmSince: 50_000,
    conflict: { manager: 'm', since: 1 },
  }
  const c = corrected({ ...s, driftSince: 49_000, calmSince: undefined }, 50_000)
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
  t.match(c.state, { driftSince: undefined, calmSince: 300, streak: 1 })
  t.equal(pendingWait(c.state, 300, o), 0, 'nothing pending any more')
})

t.test('a drift long after the last correction is an ordinary edit: corrected at once, the streak forgotten', async (t) => {
  const s: FightState = { streak: 6, correctedAt: 0, driftSince: undefined, calmSince: 0, conflict: { manager: 'm', since: 0 } }
  const d = drift(s, 10_000)
  t.same(d.action, { correct: true })
  t.equal(d.state, undefined)
  t.same(d.notice, { kind: 'ended', manager: 'm', calmMs: 10_000 })
  t.equal(corrected(d.state, 10_000).state?.streak, 0)
})

t.test('a long backoff is waited out even when it outlasts the window', async (t) => {
  const long: FightOptions = { ...o, backoffMaxMs: 60_000 }
  const s: FightState = { streak: 7, correctedAt: 0, driftSince: 100, calmSince: undefined, conflict: { manager: 'm', since: 0 } }
  t.same(fightStep(s, { type: 'drift', now: 20_000, manager: 'm' }, long).action, { correct: false, waitMs: 12_000 })
  t.same(fightStep(s, { type: 'drift', now: 32_000, manager: 'm' }, long).action, { correct: true })
})

t.test('backoffFor is 0 without a streak and never overflows', async (t) => {
  t.equal(backoffFor(0, o), 0)
  t.equal(backoffFor(1, o), 500)
  t.equal(backoffFor(5000, o), 8000)
  t.equal(backoffFor(5000, DEFAULT_FIGHT_OPTIONS), 300_000)
})

/**
 * A fighter that writes its value back `reactMs` after each of our
 * corrections, and a reconciler that looks at once on every change and when a
 * wait is over. Returns the times of our corrections.
 */
function fighter(opts: FightOptions, durationMs: number, reactMs: number): number[] {
  const writes: number[] = []
  let s: FightState | undefined
  let now = 0
  while (now < durationMs) {
    const d = fightStep(s, { type: 'drift', now, manager: 'fighter' }, opts)
    if (d.action?.correct) {
      writes.push(now)
      s = fightStep(d.state, { type: 'corrected', now }, opts).state
      now += reactMs
    } else {
      s = d.state
      now += d.action?.waitMs ?? 1
    }
  }
  return writes
}

t.test('a 10 Hz fighter with the default options: 7 writes in the first minute, then at most one per cap', async (t) => {
  const writes = fighter(DEFAULT_FIGHT_OPTIONS, 30 * 60_000, 100)
  t.same(
    writes.filter((w) => w < 60_000),
    [0, 500, 1500, 3500, 7500, 15_500, 31_500],
    'the schedule of the first minute',
  )
  for (let start = 0; start < 30 * 60_000; start += 1000) {
    const n = writes.filter((w) => w >= start && w < start + 60_000).length
    if (n > 7) t.fail(`${n} writes in the minute from ${start} ms`)
  }
  const gaps = writes.slice(1).map((w, i) => w - (writes[i] ?? 0))
  t.ok(
    gaps.every((g) => g <= DEFAULT_FIGHT_OPTIONS.backoffMaxMs + 100),
    'corrections never stop: never more than the cap (plus the reaction) apart',
  )
  t.equal(writes.length, 15, 'in 30 minutes')
})

t.test('a person repeating an edit 200 ms after each revert, 20 times: every edit is reverted within the cap', async (t) => {
  const opts: FightOptions = { ...DEFAULT_FIGHT_OPTIONS, backoffMaxMs: 1000 }
  let s: FightState | undefined
  let now = 0
  for (let i = 0; i < 20; i++) {
    const editedAt = now
    let d = fightStep(s, { type: 'drift', now, manager: 'kubectl-edit' }, opts)
    while (!d.action?.correct) {
      now += d.action?.waitMs ?? 1
      d = fightStep(d.state, { type: 'drift', now, manager: 'kubectl-edit' }, opts)
    }
    if (now - editedAt > opts.backoffMaxMs) t.fail(`edit ${i + 1} reverted after ${now - editedAt} ms`)
    s = fightStep(d.state, { type: 'corrected', now }, opts).state
    now += 200
  }
  t.ok(s?.conflict, 'reported as a fight with the person')
  t.equal(s?.conflict?.manager, 'kubectl-edit')
  const end = fightStep(s, { type: 'calm', now: now - 200 + opts.windowMs }, opts)
  t.equal(end.notice?.kind, 'ended', 'over once the last revert held for the window')
})

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
