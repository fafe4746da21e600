// The Synced step, after the objects: under off, the first clean pass
// freezes the instance; under revert and strict, Synced says whether the
// drift watches really run, or that another writer keeps changing an object
// (DriftConflict, apply/fight.ts).

import { findCondition, InstanceConditionType as C, Reason, toTimestamp } from '../../api/conditions.ts'
import { describeObject, parseObjectKey } from '../../api/identity.ts'
import type { SyncMode } from '../../api/names.ts'
import type { TemplateInstanceStatus } from '../../api/templateinstance.ts'
import { type FightOptions, type FightState, formatDuration } from '../../apply/fight.ts'
import type { WatchRegistry } from '../registry.ts'
import type { InstanceRecord } from './record.ts'

export interface SyncedInput {
  readonly mode: SyncMode
  /** The objects step left nothing undone. */
  readonly clean: boolean
  readonly now: Date
  readonly fights: ReadonlyMap<string, FightState>
  readonly fight: FightOptions
  /** The kinds whose drift watches the instance holds. */
  readonly tracked: readonly string[]
}

/** Sets Synced; returns true when the instance froze just now (its watches are to be released). */
export function setSynced(input: SyncedInput, drift: Pick<WatchRegistry, 'state' | 'retryFailed'>, record: InstanceRecord): boolean {
  const { mode, now } = input
  if (mode === 'off') {
    if (input.clean) {
      record.status.firstAppliedAt = toTimestamp(now)
      record.set({
        type: C.Synced,
        status: 'False',
        reason: Reason.Frozen,
        message: `frozen since ${record.status.firstAppliedAt}: sync mode is off`,
      })
      return true
    }
    record.set({
      type: C.Synced,
      status: 'False',
      reason: Reason.SyncPending,
      message: 'sync mode is off; applying until the first clean pass',
    })
    record.wake(2000)
    return false
  }
  const conflicts = [...input.fights].filter(([, f]) => f.conflict)
  if (conflicts.length > 0) {
    const parts = conflicts
      .slice(0, 5)
      .map(([k, f]) => `field manager "${f.conflict?.manager}" keeps changing ${describeObject(parseObjectKey(k))}`)
    record.set({
      type: C.Synced,
      status: 'False',
      reason: Reason.DriftConflict,
      message: `${parts.join('; ')}; corrections continue with backoff (at least every ${formatDuration(input.fight.backoffMaxMs)}, and ${formatDuration(input.fight.quietMs)} after the last write once the writer stops) until the object stays as rendered for ${formatDuration(input.fight.windowMs)}`,
    })
    return false
  }
  const states = input.tracked.map((g) => drift.state(g))
  const failed = states.filter((s) => s.error !== undefined)
  const starting = states.filter((s) => !s.synced && s.error === undefined)
  if (failed.length > 0) {
    const msg = `drift watch not running for ${failed.map((s) => `${s.key}: ${s.error}`).join('; ')}`
    record.set({ type: C.Synced, status: 'False', reason: Reason.WatchFailed, message: msg })
    record.notes.push({ type: 'Warning', reason: Reason.WatchFailed, message: msg })
    drift.retryFailed()
    record.wake(10_000)
  } else if (starting.length > 0 && syncedBefore(record.prev)) {
    // A watch starting again (a restart, a new leader) does not un-sync an
    // instance that was synced: the pass comes back once it has synced, and
    // a restart over converged instances writes nothing.
    record.wake(250)
  } else if (starting.length > 0) {
    record.set({
      type: C.Synced,
      status: 'Unknown',
      reason: Reason.SyncPending,
      message: `starting drift watches for ${starting.map((s) => s.key).join(', ')}`,
    })
    record.wake(250)
  } else {
    record.set({
      type: C.Synced,
      status: 'True',
      reason: Reason.SyncActive,
      message: `drift watches active for ${states.length} kind(s); mode ${mode}`,
    })
  }
  return false
}

/** The instance's Synced condition says its drift watches were active. */
function syncedBefore(prev: TemplateInstanceStatus): boolean {
  const synced = findCondition(prev.conditions, C.Synced)
  return synced?.status === 'True' && synced.reason === Reason.SyncActive
}
