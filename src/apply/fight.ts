// When to correct an object that keeps drifting back: a pure state machine per
// rendered object, fed by the reconciler with what it saw (`drift`, `calm`) and
// what it did (`corrected`), each with the current time.
//
// A re-drift seen soon after our correction (within `windowMs`) is quick; quick
// re-drifts in a row make a streak. The first drift of an object is corrected
// at once; after a quick re-drift the next correction waits backoffMs, doubling
// with the streak up to backoffMaxMs, or until no one has written the object
// for quietMs, whichever comes first. The backoff bounds our writes against a
// writer that keeps writing; the quiet period ends the wait once it stopped, so
// a person's last edit of a quick series stands for quietMs, not minutes. A
// write is told from the same object seen again by its mark (a digest of the
// object's content, given by the caller). Corrections never stop: after every
// wait the rendered state is applied again, so a fighter costs a bounded number
// of writes and a person repeating an edit never switches protection off. From
// `threshold` quick re-drifts on, the fight is reported (DriftConflict, naming
// the last other field manager). A correction that holds for windowMs ends the
// fight and resets the streak. docs/drift-fights.md has the numbers.

export interface FightOptions {
  /** A re-drift seen within this long after our correction is quick; a correction that holds this long ends the fight. */
  readonly windowMs: number
  /** Quick re-drifts in a row from which the fight is reported. */
  readonly threshold: number
  /** Wait before the correction that follows the first quick re-drift; doubles with each further one. */
  readonly backoffMs: number
  /** Upper bound of that wait. */
  readonly backoffMaxMs: number
  /** A wait ends once the object has not been written for this long: the other writer has stopped. */
  readonly quietMs: number
}

export interface FightConflict {
  /** The field manager that changed the object last (other than us). */
  readonly manager: string
  readonly since: number
}

/** What is remembered about one object after our first correction of it; absent = nothing to remember. */
export interface FightState {
  /** Quick re-drifts in a row, the current one included. */
  readonly streak: number
  /** Our last correction. */
  readonly correctedAt: number
  /** When the current drift was first seen; undefined while the object is as rendered. */
  readonly driftSince: number | undefined
  /** Since when the object has been as rendered; undefined while it is drifted. */
  readonly calmSince: number | undefined
  /** The latest write seen while the object is drifted: its mark, and when it was first seen. */
  readonly lastWrite: { readonly mark: string; readonly at: number } | undefined
  readonly conflict: FightConflict | undefined
}

export type FightEvent =
  /**
   * The object differs from the render and our apply would change it back.
   * `mark` stands for what the object holds: the same mark again is the same
   * write seen again, another mark a new write.
   */
  | { readonly type: 'drift'; readonly now: number; readonly manager: string; readonly mark: string }
  /** We wrote the correction. */
  | { readonly type: 'corrected'; readonly now: number }
  /** The object is as rendered. */
  | { readonly type: 'calm'; readonly now: number }

export type FightNotice =
  /** The fight is reported from now on; the next correction comes in nextInMs. */
  | { readonly kind: 'conflict'; readonly manager: string; readonly streak: number; readonly nextInMs: number }
  /** A correction was made after waiting out a backoff of waitedMs. */
  | { readonly kind: 'resumed'; readonly manager: string | undefined; readonly waitedMs: number }
  /** The object stayed as rendered for calmMs after the last correction: the fight is over. */
  | { readonly kind: 'ended'; readonly manager: string; readonly calmMs: number }

export interface FightStep {
  readonly state: FightState | undefined
  /** After a drift: correct now, or not before waitMs from now. */
  readonly action: { readonly correct: true } | { readonly correct: false; readonly waitMs: number } | undefined
  /** Look at the object again after this long (to end a reported fight). */
  readonly recheckMs: number | undefined
  readonly notice: FightNotice | undefined
}

export const DEFAULT_FIGHT_OPTIONS: FightOptions = Object.freeze({
  windowMs: 10_000,
  threshold: 3,
  backoffMs: 500,
  backoffMaxMs: 5 * 60_000,
  quietMs: 3000,
})

/** The wait before the correction that follows `streak` quick re-drifts. */
export function backoffFor(streak: number, o: FightOptions): number {
  if (streak <= 0) return 0
  // 2 ** 40 already exceeds any sensible cap; stop the exponent before it overflows.
  return Math.min(o.backoffMs * 2 ** Math.min(streak - 1, 40), o.backoffMaxMs)
}

const step = (
  state: FightState | undefined,
  fields: { action?: FightStep['action']; recheckMs?: number; notice?: FightNotice } = {},
): FightStep => ({
  state,
  action: fields.action,
  recheckMs: fields.recheckMs,
  notice: fields.notice,
})

export function fightStep(s: FightState | undefined, e: FightEvent, o: FightOptions): FightStep {
  switch (e.type) {
    case 'drift':
      return onDrift(s, e, o)
    case 'corrected':
      return onCorrected(s, e.now, o)
    case 'calm':
      return onCalm(s, e.now, o)
  }
}

function onDrift(s: FightState | undefined, e: Extract<FightEvent, { type: 'drift' }>, o: FightOptions): FightStep {
  const { now, manager, mark } = e
  // Nothing remembered, or the last correction held long enough: an ordinary edit.
  if (!s || (s.driftSince === undefined && now - s.correctedAt >= o.windowMs)) {
    const notice: FightNotice | undefined = s?.conflict
      ? { kind: 'ended', manager: s.conflict.manager, calmMs: now - (s.calmSince ?? s.correctedAt) }
      : undefined
    return step(undefined, { action: { correct: true }, ...(notice ? { notice } : {}) })
  }
  let next = s
  let notice: FightNotice | undefined
  if (s.driftSince === undefined) {
    const streak = s.streak + 1
    let conflict = s.conflict
    if (conflict) conflict = { ...conflict, manager }
    else if (streak >= o.threshold) conflict = { manager, since: now }
    next = { streak, correctedAt: s.correctedAt, driftSince: now, calmSince: undefined, lastWrite: { mark, at: now }, conflict }
    if (conflict && !s.conflict) notice = { kind: 'conflict', manager, streak, nextInMs: Math.max(0, dueAt(next, o) - now) }
  } else if (s.lastWrite?.mark !== mark) {
    // Written again while we wait: the quiet period starts over.
    next = { ...s, lastWrite: { mark, at: now } }
  }
  const due = dueAt(next, o)
  const action = now >= due ? ({ correct: true } as const) : ({ correct: false, waitMs: due - now } as const)
  return step(next, { action, ...(notice ? { notice } : {}) })
}

/** When a drifted object's correction is due: at the end of the backoff, or once it has been quiet for quietMs. */
function dueAt(s: FightState, o: FightOptions): number {
  const backoffEnds = s.correctedAt + backoffFor(s.streak, o)
  return s.lastWrite === undefined ? backoffEnds : Math.min(backoffEnds, s.lastWrite.at + o.quietMs)
}

function onCorrected(s: FightState | undefined, now: number, o: FightOptions): FightStep {
  const streak = s?.streak ?? 0
  const next: FightState = { streak, correctedAt: now, driftSince: undefined, calmSince: now, lastWrite: undefined, conflict: s?.conflict }
  const notice: FightNotice | undefined =
    s && backoffFor(streak, o) > 0 && s.driftSince !== undefined
      ? { kind: 'resumed', manager: s.conflict?.manager, waitedMs: now - s.driftSince }
      : undefined
  return step(next, { ...(next.conflict ? { recheckMs: o.windowMs } : {}), ...(notice ? { notice } : {}) })
}

function onCalm(s: FightState | undefined, now: number, o: FightOptions): FightStep {
  if (!s) return step(undefined)
  // Back as rendered without our correction (someone else restored it): calm starts now.
  const calmSince = s.calmSince ?? now
  const calmMs = now - calmSince
  if (calmMs >= o.windowMs) {
    return step(undefined, s.conflict ? { notice: { kind: 'ended', manager: s.conflict.manager, calmMs } } : {})
  }
  const next: FightState = { ...s, driftSince: undefined, calmSince, lastWrite: undefined }
  return step(next, next.conflict ? { recheckMs: o.windowMs - calmMs } : {})
}

/** "400ms", "2.5s", "5m", "1m30s": durations for messages. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`
  if (ms < 59_950) return `${Math.round(ms / 100) / 10}s`
  const total = Math.round(ms / 1000)
  const m = Math.floor(total / 60)
  const sec = total % 60
  return sec === 0 ? `${m}m` : `${m}m${sec}s`
}
