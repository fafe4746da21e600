// Steps 6 to 9 of the pass, the objects: the first look at each rendered
// object (apply/plan.ts planObject), the dry-run gate (nothing is applied
// unless every object passes), the decision per object once the dry-run
// answered (settle), the applies, and the prune of what the render no longer
// names. The decisions are the plan's, the requests the apply engine's
// (src/apply); this file runs them in order, keeps the per-object memory and
// reports into the record.

import type { Logger } from 'pino'
import { InstanceConditionType as C, Reason } from '../../api/conditions.ts'
import { describeObject, objectKey } from '../../api/identity.ts'
import type { IdentifiedObject } from '../../api/meta.ts'
import type { InstanceIdentity, InstanceRef } from '../../api/ownership.ts'
import type { ResourceReference } from '../../api/templateinstance.ts'
import { applyActions } from '../../apply/apply.ts'
import { failures } from '../../apply/changeset.ts'
import { dryRunGate, foundExisting } from '../../apply/diff.ts'
import type { FightOptions, FightStep } from '../../apply/fight.ts'
import {
  type Check,
  type DesiredObject,
  type DryRunAnswer,
  type FirstLook,
  type ObjectAction,
  type PlanContext,
  planObject,
  pruneActions,
  lastOtherManager,
  type Release,
  remember,
  settle,
  type Strip,
} from '../../apply/plan.ts'
import { additionWriters } from '../../drift/additions.ts'
import { prune, release } from '../../apply/prune.ts'
import type { ComponentTable } from '../../api/writers.ts'
import type { CompiledIgnore } from '../../fieldpath/compile.ts'
import type { ObjectClient } from '../../kube/objects.ts'
import type { LiveObjects } from '../live.ts'
import type { WatchRegistry } from '../registry.ts'
import type { KindRef } from '../pipeline.ts'
import { applyFailure, dryRunFailure, ownershipConflict, unservedKindOf } from '../report.ts'
import { type InstanceMemory, remembered } from './memory.ts'
import type { InstanceRecord } from './record.ts'
import type { ReconcileResult } from './types.ts'

export interface ObjectsDeps {
  readonly objects: ObjectClient
  readonly live: LiveObjects
  /** Watches of single objects in an ownership conflict: the instance holds one per such object. */
  readonly conflicts: WatchRegistry
  readonly log: Logger
  now(): Date
}

export interface ObjectsInput {
  /** The instance's work-queue key, as watch owner. */
  readonly key: string
  readonly owner: InstanceIdentity
  /** The Template the instance renders from (spec.templateRef). */
  readonly template: InstanceRef
  readonly ignore: CompiledIgnore
  readonly nowMs: number
  readonly fight: FightOptions
  /** Every kind the instance has rendered, for the prune. */
  readonly tracked: readonly string[]
  /** revert or strict: the drift caches answer the prune's list. */
  readonly guarded: boolean
  /** Set under revert and strict: other writers' additions are removed, except those of these components. */
  readonly components?: ComponentTable
}

/** What the objects step did: applied and pruned (clean: nothing left undone), or stopped, and when to come back. */
export type ObjectsOutcome =
  | { readonly applied: true; readonly clean: boolean }
  | { readonly applied: false; readonly result?: ReconcileResult; readonly unserved?: readonly KindRef[] }

/** One pass over the rendered objects: look, gate, settle, apply, prune. */
export async function syncObjects(
  desired: readonly DesiredObject[],
  input: ObjectsInput,
  deps: ObjectsDeps,
  memory: InstanceMemory,
  record: InstanceRecord,
): Promise<ObjectsOutcome> {
  const ctx: PlanContext = {
    owner: input.owner,
    template: input.template,
    ignore: input.ignore,
    now: input.nowMs,
    fight: input.fight,
    ...(input.components ? { components: input.components } : {}),
  }
  const look = (d: DesiredObject, live: IdentifiedObject | undefined): FirstLook => {
    const l = planObject(d, live, remembered(memory, d.key), ctx)
    // A wait's step may note a new write of the object (the quiet period starts over): kept too.
    if (l.type === 'unchanged' || l.type === 'wait') keep(memory, record, l, undefined, input.nowMs, input.fight)
    if (l.type === 'wait') record.wake(l.waitMs)
    return l
  }
  const first = await firstLooks(desired, deps.live, memory, look)
  const gated = await gate(first, input, deps, record, look)
  if (!gated.passed) return gated.unserved ? { applied: false, unserved: gated.unserved } : { applied: false }
  const failedKeys = await applyChanges(gated, deps, memory, record, ctx)
  const applyFailed = applyFailure(failures(record.changes, 'apply'))
  if (applyFailed) {
    record.report(applyFailed)
    record.status.renderedResources = resourceRefs(desired, memory, failedKeys)
    record.wake(5000)
    return { applied: false, result: { requeueAfterMs: record.requeueAfterMs ?? 5000 } }
  }
  const pruned = await pruneUnrendered(desired, input, deps, memory, record)
  return { applied: true, clean: pruned && gated.released === 0 }
}

interface Looked {
  readonly looks: FirstLook[]
  /** Objects taken as absent because a synced drift cache does not hold them: the dry-run tells. */
  readonly unconfirmed: Set<string>
}

/**
 * The first look at each object. An object a synced drift cache does not hold
 * is taken as absent, unread. Our own apply of this render, which the drift
 * watch may not have delivered yet (a pass its first events brought on),
 * stands in for the live object until it does: no dry-run to find out what
 * we just wrote.
 */
async function firstLooks(
  desired: readonly DesiredObject[],
  live: LiveObjects,
  memory: InstanceMemory,
  look: (d: DesiredObject, live: IdentifiedObject | undefined) => FirstLook,
): Promise<Looked> {
  const looks: FirstLook[] = []
  const unconfirmed = new Set<string>()
  for (const d of desired) {
    const applied = memory.applied.get(d.key)
    const seen = await live.lookup(d.obj, applied?.desiredHash === d.hash ? applied.result : undefined)
    if (seen.unconfirmed) unconfirmed.add(d.key)
    looks.push(look(d, seen.live))
  }
  return { looks, unconfirmed }
}

type Gated =
  /** `unserved`: the dry-run found a kind the API server does not serve (Applied=False/KindNotFound). */
  | { readonly passed: false; readonly unserved?: readonly KindRef[] }
  | {
      readonly passed: true
      readonly checks: readonly Check[]
      /** Objects with other writers' additions to remove; they need no dry-run. */
      readonly strips: readonly Strip[]
      readonly answers: ReadonlyMap<string, DryRunAnswer>
      readonly released: number
    }

/**
 * The dry-run gate: nothing is applied unless every object passes. Objects we
 * are in conflict with stop the pass (and are watched by name, so that an
 * adoption annotation or a delete is noticed at once); objects someone
 * deleted are let go (their DELETED event brings us back to re-create them).
 * An object taken as absent that the dry-run met (or that failed it, maybe for
 * being someone else's) is read and looked at again, once.
 */
async function gate(
  looked: Looked,
  input: ObjectsInput,
  deps: ObjectsDeps,
  record: InstanceRecord,
  look: (d: DesiredObject, live: IdentifiedObject | undefined) => FirstLook,
): Promise<Gated> {
  const { looks, unconfirmed } = looked
  const answers = new Map<string, DryRunAnswer>()
  const released = new Set<string>()
  for (;;) {
    const conflicts = looks.filter((l) => l.type === 'conflict')
    deps.conflicts.setOwnerKeys(
      input.key,
      conflicts.map((c) => c.desired.key),
    )
    if (conflicts.length > 0) {
      for (const c of conflicts) record.changes.push({ action: 'conflict', ref: c.desired.ref, holder: c.holder })
      const report = ownershipConflict(record.changes, input.owner)
      if (report) record.report(report)
      return { passed: false }
    }
    await releaseDeleted(looks, released, input.key, deps, record)
    const pending = looks.filter((l): l is Check => l.type === 'check' && !answers.has(l.desired.key))
    const result = await dryRunGate(deps.objects, pending, input.ignore)
    const met = (a: DryRunAnswer | undefined): boolean => a !== undefined && foundExisting(a)
    const found = pending.filter(
      (c) =>
        unconfirmed.has(c.desired.key) &&
        (result.ok ? met(result.answers.get(c.desired.key)) : objectKey(result.failed.ref) === c.desired.key),
    )
    if (result.ok) for (const [k, answer] of result.answers) if (!found.some((c) => c.desired.key === k)) answers.set(k, answer)
    if (found.length === 0) {
      if (result.ok) {
        const checks = looks.filter((l): l is Check => l.type === 'check')
        const strips = looks.filter((l): l is Strip => l.type === 'strip')
        return { passed: true, checks, strips, answers, released: released.size }
      }
      record.changes.push({ action: 'failed', ref: result.failed.ref, error: result.failed })
      record.report(dryRunFailure(result.failed))
      const unserved = unservedKindOf(result.failed.ref, result.failed.error)
      return unserved ? { passed: false, unserved: [unserved] } : { passed: false }
    }
    for (const c of found) {
      unconfirmed.delete(c.desired.key)
      looks[looks.indexOf(c)] = look(c.desired, await deps.live.get(c.desired.obj))
    }
  }
}

/** A rendered object someone deleted: our finalizer is released, once per pass. */
async function releaseDeleted(
  looks: readonly FirstLook[],
  released: Set<string>,
  key: string,
  deps: ObjectsDeps,
  record: InstanceRecord,
): Promise<void> {
  const releases = looks.filter((l): l is Release => l.type === 'release' && !released.has(l.desired.key))
  for (const r of releases) released.add(r.desired.key)
  for (const r of await release(deps.objects, releases)) {
    if (r.action === 'failed')
      deps.log.warn(
        { instance: key, object: describeObject(r.ref), err: record.redact(r.error.message) },
        'could not release deleted object',
      )
    else record.changes.push(r)
    record.wake(500)
  }
}

/**
 * Settles every check with its dry-run answer and applies what differs; a
 * correction of an object that keeps drifting back waits out its backoff
 * (apply/fight.ts). Returns the keys whose apply failed.
 */
async function applyChanges(
  gated: Extract<Gated, { passed: true }>,
  deps: ObjectsDeps,
  memory: InstanceMemory,
  record: InstanceRecord,
  ctx: PlanContext,
): Promise<Set<string>> {
  const actions: ObjectAction[] = [...gated.strips]
  for (const c of gated.checks) {
    const action = settle(c, remembered(memory, c.desired.key), gated.answers.get(c.desired.key), ctx)
    if (action.type === 'wait') record.wake(action.waitMs)
    actions.push(action)
  }
  for (const action of actions)
    if (action.type === 'unchanged' || action.type === 'wait') keep(memory, record, action, undefined, ctx.now, ctx.fight)
  const failedKeys = new Set<string>()
  for (const out of await applyActions(deps.objects, actions, () => deps.now().getTime())) {
    const { action } = out
    if (action.type !== 'create' && action.type !== 'update' && action.type !== 'correct' && action.type !== 'strip') continue
    const corrected = keep(memory, record, action, out.result, out.at, ctx.fight)
    if (out.error) {
      failedKeys.add(action.desired.key)
      record.changes.push({ action: 'failed', ref: action.desired.ref, error: out.error })
    } else if (action.type === 'correct' || action.type === 'strip') {
      const resumed = corrected?.notice?.kind === 'resumed' ? corrected.notice : undefined
      record.changes.push({
        action: 'corrected',
        ref: action.desired.ref,
        ...(action.type === 'strip'
          ? {
              changes: action.additions.map((a) => ({ pointer: a.pointer, path: a.path, kind: 'added' as const })),
              writers: additionWriters(action.additions),
              removed: true as const,
            }
          : { changes: action.changes, writers: [lastOtherManager(action.live)] }),
        ...(resumed ? { resumed: { waitedMs: resumed.waitedMs, manager: resumed.manager } } : {}),
      })
    } else {
      record.changes.push({ action: action.type === 'create' ? 'created' : 'updated', ref: action.desired.ref })
      if (action.type === 'update' && action.adopting)
        record.changes.push({ action: 'adopted', ref: action.desired.ref, adoption: action.adopting })
    }
  }
  return failedKeys
}

/**
 * Objects of ours that the render no longer names are deleted; Applied=True
 * and status.renderedResources follow. Returns whether nothing was left
 * undone (a kind that could not be listed, a delete that failed).
 */
async function pruneUnrendered(
  desired: readonly DesiredObject[],
  input: ObjectsInput,
  deps: ObjectsDeps,
  memory: InstanceMemory,
  record: InstanceRecord,
): Promise<boolean> {
  const desiredKeys = new Set(desired.map((d) => d.key))
  for (const k of memory.fights.keys()) if (!desiredKeys.has(k)) memory.fights.delete(k)
  const owned = await deps.live.owned(input.owner.uid, input.tracked, input.guarded)
  const pruned = await prune(deps.objects, pruneActions(owned.objects, desiredKeys))
  const failedDeletes: ResourceReference[] = []
  for (const p of pruned) {
    record.changes.push(p)
    if (p.action === 'pruned') memory.applied.delete(objectKey(p.ref))
    else failedDeletes.push({ ...p.ref, status: 'Failed' })
  }
  record.set({ type: C.Applied, status: 'True', reason: Reason.Success, message: `${desired.length} object(s) applied` })
  record.status.renderedResources = [...resourceRefs(desired, memory, new Set()), ...failedDeletes]
  return owned.errors.length === 0 && failedDeletes.length === 0
}

/**
 * Stores what to remember about an object after its action (apply/plan.ts
 * remember) and reports what its fight state says: the start or the end of a
 * fight into the change set, a later look as a wake-up.
 */
function keep(
  memory: InstanceMemory,
  record: InstanceRecord,
  action: ObjectAction,
  result: IdentifiedObject | undefined,
  at: number,
  fight: FightOptions,
): FightStep | undefined {
  const key = action.desired.key
  const { memory: kept, corrected } = remember(remembered(memory, key), action, result, at, fight)
  if (kept.applied) memory.applied.set(key, kept.applied)
  else memory.applied.delete(key)
  if (kept.fight) memory.fights.set(key, kept.fight)
  else memory.fights.delete(key)
  const fightOfAction = action.type === 'unchanged' || action.type === 'wait' || action.type === 'correct' || action.type === 'strip'
  const steps = [fightOfAction ? action.fight : undefined, corrected]
  for (const step of steps) {
    if (step?.recheckMs !== undefined) record.wake(step.recheckMs)
    const notice = step?.notice
    if (notice?.kind === 'conflict' || notice?.kind === 'ended') record.changes.push({ action: 'fight', ref: action.desired.ref, notice })
  }
  return corrected
}

/** status.renderedResources: each rendered object with the generation of our last apply, failed ones marked. */
function resourceRefs(desired: readonly DesiredObject[], memory: InstanceMemory, failed: ReadonlySet<string>): ResourceReference[] {
  return desired.map((d) => {
    const ref: ResourceReference = { ...d.ref }
    const generation = memory.applied.get(d.key)?.result.metadata.generation
    if (generation !== undefined) ref.observedGeneration = generation
    if (failed.has(d.key)) ref.status = 'Failed'
    return ref
  })
}
