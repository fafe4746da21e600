// The reconciler's decisions for one pass over an instance's rendered objects,
// as data. Pure: desired objects, live objects, what is remembered about each
// (the last apply, the fight state of ../fight.ts) and the time in; one typed
// action per object out. The I/O that carries the actions out lives next door
// (diff.ts, apply.ts, prune.ts); docs/reconcile.md walks through the whole pass.
//
// An object is planned in two looks, because a server-side dry-run is the
// judge of "would my apply change anything":
//   1. planObject, before any request: conflict (not ours), release (being
//      deleted by someone), unchanged (the live object is where our last apply
//      left it, or, with no memory of this render, provably where our apply
//      would leave it: ../../drift/apply-noop.ts), wait (a correction still
//      backing off), or check (ask first);
//   2. settle, for a check, with the dry-run's answer (or, for a drift that
//      lies only in fields we set, with the last apply's result): unchanged,
//      create, update (a new render), correct (drift put back) or wait.
// remember() then says what to keep after the action was carried out.

import { createHash } from 'node:crypto'
import { objectKey, refOf } from '../api/identity.ts'
import type { IdentifiedObject, ObjectRef } from '../api/meta.ts'
import { FIELD_MANAGER } from '../api/names.ts'
import { type Adoption, type Holder, type InstanceIdentity, type InstanceRef, ownershipOf } from '../api/ownership.ts'
import { applyChangesNothing } from '../drift/apply-noop.ts'
import { compare } from '../drift/compare.ts'
import { comparedPart } from '../drift/compared.ts'
import { preserveIgnoredFields } from '../drift/preserve.ts'
import type { Change } from '../drift/types.ts'
import { type CompiledIgnore, compileIgnoreFields } from '../fieldpath/compile.ts'
import { pointerTokens } from '../fieldpath/pointer.ts'
import { type FightEvent, type FightOptions, type FightState, type FightStep, fightStep } from './fight.ts'
import type { ComponentTable } from '../api/writers.ts'
import { type Addition, additionWriters, foreignAdditions } from '../drift/additions.ts'

/** A rendered object, stamped, with its identity and the hash its last apply is remembered by. */
export interface DesiredObject {
  readonly obj: IdentifiedObject
  readonly ref: ObjectRef
  readonly key: string
  readonly hash: string
}

export function desiredObject(obj: IdentifiedObject): DesiredObject {
  const ref = refOf(obj)
  return { obj, ref, key: objectKey(ref), hash: createHash('sha256').update(JSON.stringify(obj)).digest('base64url') }
}

/** What the reconciler remembers about one object between passes (in memory only). */
export interface ObjectMemory {
  /**
   * Our last apply of the object: the hash of what we sent and what the API
   * server made of it, as far as compare reads it plus metadata.generation
   * (lastApplied): one is kept per rendered object, for as long as the process runs.
   */
  readonly applied?: { readonly desiredHash: string; readonly result: IdentifiedObject }
  /** Set once the object drifted back after a correction (../fight.ts). */
  readonly fight?: FightState
}

export interface PlanContext {
  readonly owner: InstanceIdentity
  /** The Template the instance renders from: what an earlier instance of its name left from it is taken over. */
  readonly template?: InstanceRef
  readonly ignore: CompiledIgnore
  /** Milliseconds since the epoch. */
  readonly now: number
  readonly fight: FightOptions
  /**
   * Set under revert and strict: fields other writers added that the Template
   * does not render are removed (a strip), except those of these components.
   */
  readonly components?: ComponentTable
}

interface About {
  readonly desired: DesiredObject
}

/** The object exists and is not ours; it is never adopted silently. */
export interface Conflict extends About {
  readonly type: 'conflict'
  readonly reason: 'NotOwned'
  readonly live: IdentifiedObject
  /** Who holds it: nobody, another instance, or an earlier instance of this name. */
  readonly holder: Holder
}

/** Someone deleted the object; our finalizer is released so it can go, and its DELETED event brings the re-create. */
export interface Release extends About {
  readonly type: 'release'
  readonly live: IdentifiedObject
}

/** Nothing to write. */
export interface Unchanged extends About {
  readonly type: 'unchanged'
  /** The calm step of the object's fight state. */
  readonly fight: FightStep
  /** A dry-run result that matched the live object: remembered as our last apply. */
  readonly checked?: IdentifiedObject
  /**
   * The live object (usually the drift cache's) found where our last apply
   * left it, or proved to be what our apply would leave (no memory of this
   * render); remember keeps its parts as the memory of the apply.
   */
  readonly seen?: IdentifiedObject
}

/** A correction that waits out its backoff (a fight); the object is not even dry-run before it is due. */
export interface Wait extends About {
  readonly type: 'wait'
  readonly waitMs: number
  /** The drift step that decided the wait. */
  readonly fight: FightStep
}

/** To be decided after asking: a server-side dry-run, or (dryRun false) the last apply's result. */
export interface Check extends About {
  readonly type: 'check'
  readonly live: IdentifiedObject | undefined
  /** What to send: the desired object with ignored fields taken from the live one. */
  readonly intent: IdentifiedObject
  /** False when the drift lies only in fields our intent sets: our apply certainly changes them back. */
  readonly dryRun: boolean
  /** Set when the object becomes ours with this apply. */
  readonly adopting?: Adoption
}

export interface Create extends About {
  readonly type: 'create'
  readonly intent: IdentifiedObject
}

/** A new render of an existing object. */
export interface Update extends About {
  readonly type: 'update'
  readonly live: IdentifiedObject
  readonly intent: IdentifiedObject
  readonly changes: readonly Change[]
  /** Set when the object becomes ours with this apply. */
  readonly adopting?: Adoption
}

/** Drift put back: the live object differs from what we applied last and the render has not changed. */
export interface Correct extends About {
  readonly type: 'correct'
  readonly live: IdentifiedObject
  readonly intent: IdentifiedObject
  readonly changes: readonly Change[]
  /** The drift step of the object's fight state. */
  readonly fight: FightStep
}

/** An object of ours that the render no longer names. */
export interface Prune {
  readonly type: 'prune'
  readonly ref: ObjectRef
  readonly key: string
  readonly live: IdentifiedObject
}

/** Fields other writers added, which the Template does not render: removed with one guarded JSON patch. */
export interface Strip extends About {
  readonly type: 'strip'
  readonly live: IdentifiedObject
  readonly additions: readonly Addition[]
  /** The drift step of the object's fight state. */
  readonly fight: FightStep
}

export type FirstLook = Conflict | Release | Unchanged | Wait | Check | Strip
export type ObjectAction = Conflict | Release | Unchanged | Wait | Create | Update | Correct | Strip

/** What a dry-run apply answered for a check. */
export interface DryRunAnswer {
  readonly wouldBe: IdentifiedObject
  /** From the live object to wouldBe, outside ignoreFields and server-managed fields; empty for a create. */
  readonly changes: readonly Change[]
}

/** The first look at one rendered object, before any request. */
export function planObject(desired: DesiredObject, live: IdentifiedObject | undefined, memory: ObjectMemory, ctx: PlanContext): FirstLook {
  let adopting: Adoption | undefined
  if (live !== undefined) {
    const verdict = ownershipOf(live, ctx.owner, ctx.template)
    if (!verdict.owned) return { type: 'conflict', desired, reason: 'NotOwned', live, holder: verdict.holder }
    adopting = verdict.adopting
    if (live.metadata.deletionTimestamp) return { type: 'release', desired, live }
    const additions = ctx.components ? foreignAdditions(live, desired.obj, ctx.components, ctx.ignore) : []
    if (additions.length > 0) {
      const fight = fightStep(memory.fight, driftOf(live, ctx.now, additionWriters(additions).join(', ')), ctx.fight)
      if (fight.action && !fight.action.correct) return { type: 'wait', desired, waitMs: fight.action.waitMs, fight }
      return { type: 'strip', desired, live, additions, fight }
    }
  }
  const applied = memory.applied
  const isCorrection = live !== undefined && applied?.desiredHash === desired.hash
  // The drift watch's copy is back where our last apply left it: no request at all.
  if (isCorrection && compare(applied.result, live, ctx.ignore).length === 0) {
    return { type: 'unchanged', desired, fight: fightStep(memory.fight, { type: 'calm', now: ctx.now }, ctx.fight), seen: live }
  }
  // A correction already waiting is not even dry-run before it is due; each
  // look tells the fight state whether the object was written again meanwhile.
  if (isCorrection && memory.fight?.driftSince !== undefined) {
    const fight = fightStep(memory.fight, driftOf(live, ctx.now), ctx.fight)
    if (fight.action && !fight.action.correct) return { type: 'wait', desired, waitMs: fight.action.waitMs, fight }
  }
  // Drift only in fields we set means our apply certainly changes them back:
  // no need to ask the server first. Anything else (a new render, fields of
  // other managers) goes through the dry-run.
  const direct = isCorrection && driftOnlyInOwnFields(applied.result, live, desired.obj, ctx.ignore)
  const intent = live ? preserveIgnoredFields(desired.obj, live, ctx.ignore) : desired.obj
  // Without a memory that answers (a restart, a new render), the live object
  // and our managedFields entry may still prove the apply a no-op
  // (docs/restart-without-dry-runs.md); when they cannot, the dry-run asks.
  if (live !== undefined && !direct && applyChangesNothing(intent, live)) {
    return { type: 'unchanged', desired, fight: fightStep(memory.fight, { type: 'calm', now: ctx.now }, ctx.fight), seen: live }
  }
  return { type: 'check', desired, live, intent, dryRun: !direct, ...(adopting ? { adopting } : {}) }
}

/** The decision for a check, once the dry-run answered (`answer` is required when check.dryRun). */
export function settle(check: Check, memory: ObjectMemory, answer: DryRunAnswer | undefined, ctx: PlanContext): ObjectAction {
  const { desired, live, intent } = check
  if (check.dryRun && answer === undefined) throw new Error(`${objectKey(desired.ref)}: settled without its dry-run`)
  if (live === undefined) return { type: 'create', desired, intent }
  const last = memory.applied
  const changes = answer ? answer.changes : last ? compare(live, last.result, ctx.ignore) : []
  if (changes.length === 0) {
    const fight = fightStep(memory.fight, { type: 'calm', now: ctx.now }, ctx.fight)
    return { type: 'unchanged', desired, fight, ...(answer ? { checked: answer.wouldBe } : {}) }
  }
  if (last?.desiredHash !== desired.hash) {
    return { type: 'update', desired, live, intent, changes, ...(check.adopting ? { adopting: check.adopting } : {}) }
  }
  const fight = fightStep(memory.fight, driftOf(live, ctx.now), ctx.fight)
  if (fight.action && !fight.action.correct) return { type: 'wait', desired, waitMs: fight.action.waitMs, fight }
  return { type: 'correct', desired, live, intent, changes, fight }
}

/**
 * The drift event for a live object. Its mark is a digest of what compare
 * reads (status and server-managed metadata left out), so that a status
 * update, or the same object delivered again, is not taken for a new write.
 */
function driftOf(live: IdentifiedObject, now: number, manager = lastOtherManager(live)): FightEvent {
  const mark = createHash('sha256')
    .update(JSON.stringify(comparedPart(live)))
    .digest('base64url')
  return { type: 'drift', now, manager, mark }
}

/** Objects of ours (found by the UID label) that the render no longer names. */
export function pruneActions(owned: readonly IdentifiedObject[], desiredKeys: ReadonlySet<string>): Prune[] {
  const out: Prune[] = []
  for (const live of owned) {
    const ref = refOf(live)
    const key = objectKey(ref)
    if (!desiredKeys.has(key)) out.push({ type: 'prune', ref, key, live })
  }
  return out
}

/**
 * What to remember about an object once its action was carried out. `result`
 * is what the apply returned, undefined when it failed (or none was made). A
 * successful correction feeds the fight state; its step (the end of a backoff,
 * a recheck) comes back as `corrected`.
 */
export function remember(
  prev: ObjectMemory,
  action: ObjectAction,
  result: IdentifiedObject | undefined,
  now: number,
  opts: FightOptions,
): { memory: ObjectMemory; corrected?: FightStep } {
  const hash = action.desired.hash
  const appliedOf = (obj: IdentifiedObject): ObjectMemory['applied'] => ({ desiredHash: hash, result: lastApplied(obj) })
  const withFight = (applied: ObjectMemory['applied'], fight: FightState | undefined): ObjectMemory => ({
    ...(applied ? { applied } : {}),
    ...(fight ? { fight } : {}),
  })
  switch (action.type) {
    case 'conflict':
    case 'release':
      return { memory: prev }
    case 'unchanged': {
      // Seen without a memory of this render (proved a no-op: applyChangesNothing),
      // the live object stands for our apply's result, as a dry-run's would.
      const kept = action.checked
        ? appliedOf(action.checked)
        : action.seen
          ? prev.applied?.desiredHash === hash
            ? shared(prev.applied, action.seen)
            : appliedOf(action.seen)
          : prev.applied
      return { memory: withFight(kept, action.fight.state) }
    }
    case 'wait':
      return { memory: withFight(prev.applied, action.fight.state) }
    case 'create':
    case 'update':
      // A new render or a first apply: whatever fight there was is about something else.
      return { memory: result ? withFight(appliedOf(result), undefined) : prev }
    case 'correct': {
      if (!result) return { memory: withFight(prev.applied, action.fight.state) }
      const corrected = fightStep(action.fight.state, { type: 'corrected', now }, opts)
      return { memory: withFight(appliedOf(result), corrected.state), corrected }
    }
    case 'strip': {
      // Our fields are as they were: the memory of our apply stays.
      if (!result) return { memory: withFight(prev.applied, action.fight.state) }
      const corrected = fightStep(action.fight.state, { type: 'corrected', now }, opts)
      return { memory: withFight(prev.applied, corrected.state), corrected }
    }
  }
}

/**
 * What is remembered of an apply's result: what compare reads, the generation
 * status.resources reports, and the resourceVersion, which tells whether a
 * drift cache without the object has merely not delivered our apply yet.
 */
export function lastApplied(obj: IdentifiedObject): IdentifiedObject {
  return comparedPart(obj, ['generation', 'resourceVersion'])
}

const NOTHING_IGNORED = compileIgnoreFields([])

/**
 * The memory of an apply rebuilt from parts of the cached live object when
 * those hold the same content in every field compare can read (nothing
 * ignored): the same answers under any rules, and the drift cache's copy
 * serves both. The generation stays the one our apply returned.
 */
function shared(prev: NonNullable<ObjectMemory['applied']>, live: IdentifiedObject): NonNullable<ObjectMemory['applied']> {
  const result = prev.result
  if (sharesParts(result, live) || compare(result, live, NOTHING_IGNORED).length > 0) return prev
  const rebased = comparedPart(live, ['resourceVersion'])
  const { generation } = result.metadata
  if (generation !== undefined) rebased.metadata.generation = generation
  return { desiredHash: prev.desiredHash, result: rebased }
}

/** True when the remembered result already holds the live object's own parts (a shared() of it). */
function sharesParts(result: IdentifiedObject, live: IdentifiedObject): boolean {
  const r = result as unknown as Record<string, unknown>
  const l = live as unknown as Record<string, unknown>
  for (const k of Object.keys(r)) if (k !== 'metadata' && r[k] !== l[k]) return false
  const rm = result.metadata as unknown as Record<string, unknown>
  const lm = live.metadata as unknown as Record<string, unknown>
  for (const k of Object.keys(rm)) if (k !== 'generation' && typeof rm[k] === 'object' && rm[k] !== lm[k]) return false
  return true
}

/** The most recent writer of the object other than us, from managedFields. */
export function lastOtherManager(obj: IdentifiedObject | undefined): string {
  const entries = obj?.metadata.managedFields ?? []
  let best: { manager: string; time: string } | undefined
  for (const e of entries) {
    if (!e.manager || e.manager === FIELD_MANAGER) continue
    const time = e.time ?? ''
    if (!best || time >= best.time) best = { manager: e.manager, time }
  }
  return best?.manager ?? 'unknown'
}

/** True when every difference between what we applied and what is live lies in a field our intent sets. */
function driftOnlyInOwnFields(
  applied: IdentifiedObject,
  live: IdentifiedObject,
  intent: IdentifiedObject,
  ignore: CompiledIgnore,
): boolean {
  const changes = compare(applied, live, ignore)
  if (changes.length === 0) return false
  return changes.every((c) => c.kind !== 'added' && hasPointer(intent, c.pointer))
}

function hasPointer(obj: unknown, pointer: string): boolean {
  let cur: unknown = obj
  for (const key of pointerTokens(pointer)) {
    if (Array.isArray(cur)) {
      const i = Number(key)
      if (!Number.isInteger(i) || i < 0 || i >= cur.length) return false
      cur = cur[i]
    } else if (cur !== null && typeof cur === 'object' && Object.hasOwn(cur, key)) {
      cur = (cur as Record<string, unknown>)[key]
    } else {
      return false
    }
  }
  return true
}
