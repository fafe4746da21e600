// What the reconciler remembers about one instance between passes (never
// persisted, dropped with the instance or a new UID): per object, our last
// apply and its fight state; the record's view of our own writes while the
// cache has not delivered them; the render memo, and a render that timed out.

import type { IdentifiedObject, SourceRef } from '../../api/meta.ts'
import type { TemplateInstanceStatus } from '../../api/templateinstance.ts'
import type { FightState } from '../../apply/fight.ts'
import type { ObjectMemory } from '../../apply/plan.ts'
import type { Redact } from '../../render/redact.ts'
import type { LeftOut } from '../status-bounds.ts'

/** Our writes to the instance that the cache may not show yet (record.ts). */
export interface RecordMemory {
  /**
   * When the API server last dropped status.trackedKinds (a CRD older than the
   * reconciler): for a while after, the list goes to trackedGVKs too.
   */
  trackedKindsDroppedAt: number | undefined
  /**
   * Our last status write, and the resourceVersions of the instance it was made
   * over (the one the pass read, then those of its own earlier writes). While
   * the cache still holds one of them, it has not delivered the write yet: the
   * next pass starts from what we wrote, not from the older status, which
   * would make it write the same status again.
   */
  written?: { readonly overRvs: readonly string[]; readonly status: TemplateInstanceStatus }
  /**
   * What our last metadata patch put on the instance (the finalizer and the
   * tracked-kinds annotation), kept on the same terms as `written`.
   */
  recorded?: { readonly overRvs: readonly string[]; readonly kinds: readonly string[] }
}

/** The last render, keyed by its inputs, so that drift events (which change none) do not re-read parameter sources. */
export interface RenderMemo {
  readonly key: string
  readonly objects: IdentifiedObject[]
  readonly values: Record<string, unknown>
  readonly resolved: NonNullable<TemplateInstanceStatus['resolvedParameters']>
  readonly sources: SourceRef[]
  readonly withheld: readonly string[]
  /** Exposed values too large for the status (../status-bounds.ts). */
  readonly leftOut: readonly LeftOut[]
  /** Built from the values read from Secrets. */
  readonly redact: Redact
}

export interface InstanceMemory {
  readonly uid: string
  /** Per rendered object (objectKey): our last apply of it. */
  readonly applied: Map<string, NonNullable<ObjectMemory['applied']>>
  /** Per object that drifted back after a correction: the backoff state (apply/fight.ts). */
  readonly fights: Map<string, FightState>
  readonly record: RecordMemory
  /** Bumped by parameter-source watch events; part of the render memo key. */
  sourceEpoch: number
  renderMemo?: RenderMemo
  /**
   * A render stopped at the render time limit, by the memo key of its inputs:
   * a pass over the same inputs reports it again without spending another
   * time limit of a render worker on it (docs/render-time-limit.md).
   */
  renderTimeout?: { readonly key: string; readonly reason: string; readonly message: string }
}

export function newMemory(uid: string): InstanceMemory {
  return { uid, applied: new Map(), fights: new Map(), record: { trackedKindsDroppedAt: undefined }, sourceEpoch: 0 }
}

/** What the plan is told about one object. */
export function remembered(m: InstanceMemory, key: string): ObjectMemory {
  const applied = m.applied.get(key)
  const fight = m.fights.get(key)
  return { ...(applied ? { applied } : {}), ...(fight ? { fight } : {}) }
}
