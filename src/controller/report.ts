// From a pass's change set (apply/changeset.ts) to what users see: the Events
// on the TemplateInstance and the Applied condition. Pure; the reconcile
// records the Events and writes the status. Events name objects and field
// paths, never values.

import { describeObject } from '../api/identity.ts'
import { InstanceConditionType as C, type ConditionUpdate, Reason } from '../api/conditions.ts'
import { ANNOTATION_INSTANCE_REF } from '../api/names.ts'
import type { ChangeSetEntry, ObjectError } from '../apply/changeset.ts'
import { conflictsMessage, conflictText } from '../apply/conflict-text.ts'
import type { Adoption, InstanceRef } from '../api/ownership.ts'
import { type FightOptions, formatDuration } from '../apply/fight.ts'
import { isKindNotServed, KIND_NOT_SERVED, UnknownKindError } from '../kube/discovery.ts'
import type { KindRef } from './pipeline.ts'

export interface EventNote {
  readonly type: 'Normal' | 'Warning'
  readonly reason: string
  readonly message: string
}

/** How many changed paths a Reverted Event lists before "and N more". */
const PATHS_IN_EVENT = 10

/** How many objects an Event about several names before "and N more". */
const OBJECTS_IN_EVENT = 20

/** What happened to objects that one Event per pass reports for all of them, whatever their number. */
const GROUPED = {
  created: { reason: 'Created', one: (w: string) => `created ${w}`, many: (n: number) => `created ${n} objects` },
  updated: { reason: 'Updated', one: (w: string) => `updated ${w}`, many: (n: number) => `updated ${n} objects` },
  pruned: {
    reason: 'Pruned',
    one: (w: string) => `deleted ${w}: no longer rendered`,
    many: (n: number) => `deleted ${n} objects no longer rendered`,
  },
  released: {
    reason: 'ObjectDeleted',
    one: (w: string) => `${w} was deleted outside template-sync; it will be re-created`,
    many: (n: number) => `${n} objects were deleted outside template-sync; they will be re-created`,
  },
} as const

/** Names of objects for one Event: the first OBJECTS_IN_EVENT, then a count. */
function objectList(names: readonly string[]): string {
  const more = names.length > OBJECTS_IN_EVENT ? ` and ${names.length - OBJECTS_IN_EVENT} more` : ''
  return names.slice(0, OBJECTS_IN_EVENT).join(', ') + more
}

/**
 * The Events of one pass: one per kind of thing that happened to objects
 * (created, updated, pruned, deleted by someone), naming them, so that a new
 * instance of many objects costs one Event; one per correction, naming the
 * fields put back; one per fight that started or ended and per failed delete.
 */
export function eventsFor(set: readonly ChangeSetEntry[], fight: FightOptions): EventNote[] {
  const out: EventNote[] = []
  const grouped = new Map<keyof typeof GROUPED, { at: number; names: string[] }>()
  for (const e of set) {
    const what = describeObject(e.ref)
    switch (e.action) {
      case 'created':
      case 'updated':
      case 'pruned':
      case 'released': {
        const g = grouped.get(e.action)
        if (g) g.names.push(what)
        else {
          grouped.set(e.action, { at: out.length, names: [what] })
          // A placeholder keeps the Event where its first object came.
          out.push({ type: 'Normal', reason: GROUPED[e.action].reason, message: '' })
        }
        break
      }
      case 'corrected': {
        const paths = e.changes
          .slice(0, PATHS_IN_EVENT)
          .map((c) => c.path)
          .join(', ')
        const more = e.changes.length > PATHS_IN_EVENT ? ` and ${e.changes.length - PATHS_IN_EVENT} more` : ''
        const after = e.resumed
          ? ` (after a ${formatDuration(e.resumed.waitedMs)} backoff${e.resumed.manager ? `: field manager "${e.resumed.manager}" keeps changing it` : ''})`
          : ''
        const writers = e.writers.map((w) => `"${w}"`).join(', ')
        const message = e.removed
          ? `removed from ${what} what the Template does not render: ${paths}${more}, added by field manager ${writers}${after}`
          : `reverted drift in ${what}: ${paths}${more}${writers ? `, changed by field manager ${writers}` : ''}${after}`
        out.push({ type: 'Normal', reason: 'Reverted', message })
        break
      }
      case 'failed':
        // A failed prune is reported per object; apply and dry-run failures once per pass (appliedFailure).
        if (e.error.operation === 'delete') {
          out.push({ type: 'Warning', reason: 'DeleteFailed', message: `could not delete ${what}: ${e.error.message}` })
        }
        break
      case 'fight':
        if (e.notice.kind === 'conflict') {
          out.push({
            type: 'Warning',
            reason: Reason.DriftConflict,
            message:
              `${what} drifted again right after each of the last ${e.notice.streak} corrections; field manager "${e.notice.manager}" keeps changing it. ` +
              `Corrections continue with backoff: the next in ${formatDuration(e.notice.nextInMs)}, later ones at least every ${formatDuration(fight.backoffMaxMs)}` +
              ` and ${formatDuration(fight.quietMs)} after the last write once the writer stops`,
          })
        } else {
          out.push({
            type: 'Normal',
            reason: 'DriftConflictResolved',
            message: `${what} stayed as rendered for ${formatDuration(e.notice.calmMs)} after the last correction; the fight with field manager "${e.notice.manager}" is over and drift is corrected at once again`,
          })
        }
        break
      case 'conflict':
        // Reported once per pass (ownershipConflict).
        break
      case 'adopted':
        out.push({ type: 'Normal', reason: 'Adopted', message: adoptedText(what, e.adoption) })
        break
    }
  }
  for (const [action, { at, names }] of grouped) {
    const g = GROUPED[action]
    const message = names.length === 1 ? g.one(names[0] as string) : `${g.many(names.length)}: ${objectList(names)}`
    out[at] = { type: 'Normal', reason: g.reason, message }
  }
  return out
}

export interface AppliedReport {
  readonly condition: ConditionUpdate
  readonly event: EventNote
}

function adoptedText(what: string, adoption: Adoption): string {
  return adoption.kind === 'annotation'
    ? `adopted ${what}: it carried the ${ANNOTATION_INSTANCE_REF} annotation naming this instance`
    : `took over ${what} from an earlier TemplateInstance of this name (uid ${adoption.uid}), rendered from the same Template`
}

/** Applied=False/OwnershipConflict for the objects that exist without our ownership; undefined when there are none. */
export function ownershipConflict(set: readonly ChangeSetEntry[], instance: InstanceRef): AppliedReport | undefined {
  const texts = set.flatMap((e) => (e.action === 'conflict' ? [conflictText(e.ref, e.holder, instance)] : []))
  const first = texts[0]
  if (first === undefined) return undefined
  return {
    condition: { type: C.Applied, status: 'False', reason: Reason.OwnershipConflict, message: conflictsMessage(texts) },
    event: { type: 'Warning', reason: Reason.OwnershipConflict, message: `${first.what}. ${first.fix}` },
  }
}

function immutableText(e: ObjectError): string {
  return `the new render changes ${e.immutable.join(', ')} of ${describeObject(e.ref)}, which the API server does not allow to change`
}

/**
 * The kind of `ref` when `error` says the API server does not serve it (a
 * discovery miss, or a request answered 404 without a Status); undefined for
 * any other error.
 */
export function unservedKindOf(ref: { readonly apiVersion: string; readonly kind: string }, error: unknown): KindRef | undefined {
  if (!isKindNotServed(error)) return undefined
  const detail = error instanceof UnknownKindError && error.detail !== KIND_NOT_SERVED ? error.detail : undefined
  return { apiVersion: ref.apiVersion, kind: ref.kind, ...(detail !== undefined ? { detail } : {}) }
}

/** Applied=False/KindNotFound: rendered kinds the API server does not serve, so nothing was applied. */
export function kindNotFound(kinds: readonly KindRef[]): AppliedReport {
  const one = kinds.length === 1
  const list = kinds.map((k) => `${k.kind} ${k.apiVersion}${k.detail !== undefined ? ` (discovery failed: ${k.detail})` : ''}`).join(', ')
  const what = one
    ? `${list} is not served by the API server (is its CRD installed?)`
    : `${list} are not served by the API server (are their CRDs installed?)`
  return {
    condition: {
      type: C.Applied,
      status: 'False',
      reason: Reason.KindNotFound,
      message: `${what}; nothing was applied; applies once ${one ? 'it is' : 'they are'} served`,
    },
    event: { type: 'Warning', reason: Reason.KindNotFound, message: `${what}; nothing was applied` },
  }
}

/** The gate rejected the render: nothing was applied. */
export function dryRunFailure(e: ObjectError): AppliedReport {
  const unserved = unservedKindOf(e.ref, e.error)
  if (unserved !== undefined) return kindNotFound([unserved])
  if (e.immutable.length > 0) {
    return {
      condition: {
        type: C.Applied,
        status: 'False',
        reason: Reason.ImmutableFieldChanged,
        message: `${immutableText(e)}; nothing was applied. Delete ${describeObject(e.ref)} to have it created from the new render, or change the Template back`,
      },
      event: { type: 'Warning', reason: Reason.ImmutableFieldChanged, message: `${immutableText(e)} (${e.message})` },
    }
  }
  return {
    condition: {
      type: C.Applied,
      status: 'False',
      reason: Reason.DryRunFailed,
      message: `server-side dry-run of ${describeObject(e.ref)} failed, nothing was applied: ${e.message}`,
    },
    event: { type: 'Warning', reason: Reason.DryRunFailed, message: `${describeObject(e.ref)}: ${e.message}` },
  }
}

/** Some applies failed (the others went through). An immutable field among them names the condition. */
export function applyFailure(errors: readonly ObjectError[]): AppliedReport | undefined {
  if (errors.length === 0) return undefined
  const texts = errors.map((e) =>
    e.immutable.length > 0 ? `${immutableText(e)} (${e.message})` : `${describeObject(e.ref)}: ${e.message}`,
  )
  const reason = errors.some((e) => e.immutable.length > 0) ? Reason.ImmutableFieldChanged : Reason.ApplyFailed
  return {
    condition: { type: C.Applied, status: 'False', reason, message: texts.slice(0, 5).join('; ') },
    event: { type: 'Warning', reason, message: texts[0] ?? '' },
  }
}
