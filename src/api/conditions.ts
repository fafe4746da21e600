// Condition types and reasons of both kinds, and the two pure rules every
// status writer needs: when lastTransitionTime moves, and how phase follows
// from conditions. Reasons are `as const` objects so that a typo is a type
// error and docs can be checked against the list.

import type { Condition, ConditionStatus, Timestamp } from './meta.ts'
import type { InstancePhase } from './templateinstance.ts'
import type { TemplatePhase } from './template.ts'

export const TemplateConditionType = {
  Valid: 'Valid',
  SourceAccessible: 'SourceAccessible',
  DryRunRendered: 'DryRunRendered',
  Deleting: 'Deleting',
} as const
export type TemplateConditionType = (typeof TemplateConditionType)[keyof typeof TemplateConditionType]

export const InstanceConditionType = {
  TemplateResolved: 'TemplateResolved',
  TargetNamespaceAllowed: 'TargetNamespaceAllowed',
  ParametersValid: 'ParametersValid',
  Rendered: 'Rendered',
  Applied: 'Applied',
  OutputsResolved: 'OutputsResolved',
  Synced: 'Synced',
  Ready: 'Ready',
} as const
export type InstanceConditionType = (typeof InstanceConditionType)[keyof typeof InstanceConditionType]

export const Reason = {
  // shared
  Success: 'Success',
  // Template: Valid
  ValidationSucceeded: 'ValidationSucceeded',
  ValidationFailed: 'ValidationFailed',
  SpecInvalid: 'SpecInvalid',
  /** spec.helm is accepted by the schema but this implementation renders gotemplate only. */
  HelmNotSupported: 'HelmNotSupported',
  // Template: SourceAccessible
  RepositoryReachable: 'RepositoryReachable',
  RepositoryUnreachable: 'RepositoryUnreachable',
  // Template: DryRunRendered
  RenderSucceeded: 'RenderSucceeded',
  RenderFailed: 'RenderFailed',
  DryRunSkipped: 'DryRunSkipped',
  // Template: Deleting
  DeletionBlocked: 'DeletionBlocked',
  // TemplateInstance: TemplateResolved
  TemplateNotFound: 'TemplateNotFound',
  // TemplateInstance: TargetNamespaceAllowed
  NamespaceNotPermitted: 'NamespaceNotPermitted',
  // TemplateInstance: ParametersValid
  AllParametersResolved: 'AllParametersResolved',
  InvalidParameter: 'InvalidParameter',
  OverrideNotAllowed: 'OverrideNotAllowed',
  ParameterResolutionFailed: 'ParameterResolutionFailed',
  // TemplateInstance: Rendered
  TemplateExecutionFailed: 'TemplateExecutionFailed',
  // TemplateInstance: Applied
  ApplyFailed: 'ApplyFailed',
  /** An object to apply exists without our ownership metadata; it is never adopted silently. */
  OwnershipConflict: 'OwnershipConflict',
  /** The server-side dry-run gate rejected the new render; nothing was applied. */
  DryRunFailed: 'DryRunFailed',
  // TemplateInstance: OutputsResolved
  OutputsResolved: 'OutputsResolved',
  NoOutputs: 'NoOutputs',
  OutputSourceNotFound: 'OutputSourceNotFound',
  OutputExtractionFailed: 'OutputExtractionFailed',
  /** A frozen instance cannot name an output source from a parameter without exposeInStatus. */
  OutputParameterNotExposed: 'OutputParameterNotExposed',
  // TemplateInstance: Synced
  SyncActive: 'SyncActive',
  Frozen: 'Frozen',
  /** Mode `off` before the first clean pass: still applying, not frozen yet. */
  SyncPending: 'SyncPending',
  /** Another writer keeps changing a guarded field; reverts back off instead of looping. */
  DriftConflict: 'DriftConflict',
  /** A drift watch could not be started or keeps failing (e.g. missing RBAC). */
  WatchFailed: 'WatchFailed',
  // TemplateInstance: Ready
  Reconciled: 'Reconciled',
  /** Ready=Unknown: some gating condition has not been evaluated yet. */
  Pending: 'Pending',
} as const
export type Reason = (typeof Reason)[keyof typeof Reason]

/** Which reasons each condition type may carry (Ready=False copies the first failing reason). */
export const REASONS_BY_CONDITION: Readonly<Record<TemplateConditionType | InstanceConditionType, readonly Reason[]>> = Object.freeze({
  Valid: [Reason.ValidationSucceeded, Reason.ValidationFailed, Reason.SpecInvalid, Reason.HelmNotSupported],
  SourceAccessible: [Reason.RepositoryReachable, Reason.RepositoryUnreachable],
  DryRunRendered: [Reason.RenderSucceeded, Reason.RenderFailed, Reason.DryRunSkipped],
  Deleting: [Reason.DeletionBlocked],
  TemplateResolved: [Reason.Success, Reason.TemplateNotFound],
  TargetNamespaceAllowed: [Reason.Success, Reason.NamespaceNotPermitted],
  ParametersValid: [Reason.AllParametersResolved, Reason.InvalidParameter, Reason.OverrideNotAllowed, Reason.ParameterResolutionFailed],
  Rendered: [Reason.Success, Reason.TemplateExecutionFailed],
  Applied: [Reason.Success, Reason.ApplyFailed, Reason.OwnershipConflict, Reason.DryRunFailed],
  OutputsResolved: [
    Reason.OutputsResolved,
    Reason.NoOutputs,
    Reason.OutputSourceNotFound,
    Reason.OutputExtractionFailed,
    Reason.OutputParameterNotExposed,
  ],
  Synced: [Reason.SyncActive, Reason.Frozen, Reason.SyncPending, Reason.DriftConflict, Reason.WatchFailed],
  Ready: [Reason.Reconciled, Reason.Pending],
})

/** The conditions that decide an instance's phase, in the order a reconcile sets them. */
export const GATING_CONDITIONS: readonly InstanceConditionType[] = Object.freeze([
  InstanceConditionType.TemplateResolved,
  InstanceConditionType.TargetNamespaceAllowed,
  InstanceConditionType.ParametersValid,
  InstanceConditionType.Rendered,
  InstanceConditionType.Applied,
])

/** What a writer supplies; lastTransitionTime is computed. */
export interface ConditionUpdate {
  type: string
  status: ConditionStatus
  reason: string
  message?: string
  observedGeneration?: number
}

/** metav1.Time precision: whole seconds, UTC. */
export function toTimestamp(now: Date): Timestamp {
  return now.toISOString().replace(/\.\d+Z$/, 'Z')
}

export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type)
}

/**
 * Returns the list with `next` merged in. lastTransitionTime moves only when
 * the status changes, so reason/message edits do not look like transitions.
 * When nothing would change the input array itself is returned, which lets a
 * caller skip a status write by reference comparison. Never mutates input.
 */
export function setCondition(conditions: readonly Condition[] | undefined, next: ConditionUpdate, now: Date): readonly Condition[] {
  const list = conditions ?? []
  const at = list.findIndex((c) => c.type === next.type)
  const previous = at >= 0 ? list[at] : undefined
  const merged: Condition = {
    type: next.type,
    status: next.status,
    reason: next.reason,
    message: next.message ?? '',
    lastTransitionTime: previous !== undefined && previous.status === next.status ? previous.lastTransitionTime : toTimestamp(now),
  }
  const generation = next.observedGeneration ?? previous?.observedGeneration
  if (generation !== undefined) merged.observedGeneration = generation
  if (previous !== undefined && sameCondition(previous, merged)) return list
  if (previous === undefined) return [...list, merged]
  return list.map((c, i) => (i === at ? merged : c))
}

function sameCondition(a: Condition, b: Condition): boolean {
  return (
    a.status === b.status &&
    a.reason === b.reason &&
    a.message === b.message &&
    a.lastTransitionTime === b.lastTransitionTime &&
    a.observedGeneration === b.observedGeneration
  )
}

/** `Failed` iff any gating condition is False; OutputsResolved and Synced never count. */
export function deriveInstancePhase(conditions: readonly Condition[] | undefined): InstancePhase {
  return firstFailingGate(conditions) === undefined ? 'Ready' : 'Failed'
}

/** The first gating condition that is False, in reconcile order. */
export function firstFailingGate(conditions: readonly Condition[] | undefined): Condition | undefined {
  for (const type of GATING_CONDITIONS) {
    const c = findCondition(conditions, type)
    if (c?.status === 'False') return c
  }
  return undefined
}

/**
 * The Ready condition implied by the gating conditions: False with the reason
 * and message of the first failing gate; True/Reconciled when every gate is
 * True; Unknown while some gate has not been evaluated yet.
 */
export function deriveReadyCondition(conditions: readonly Condition[] | undefined): ConditionUpdate {
  const failing = firstFailingGate(conditions)
  if (failing !== undefined) {
    return { type: InstanceConditionType.Ready, status: 'False', reason: failing.reason, message: failing.message }
  }
  const pending = GATING_CONDITIONS.find((type) => findCondition(conditions, type)?.status !== 'True')
  if (pending !== undefined) {
    return {
      type: InstanceConditionType.Ready,
      status: 'Unknown',
      reason: Reason.Pending,
      message: `waiting for condition ${pending}`,
    }
  }
  return { type: InstanceConditionType.Ready, status: 'True', reason: Reason.Reconciled, message: '' }
}

/**
 * Template phase: `Invalid` for a broken spec (Valid=False or a failed dry
 * render), `Error` for an unreachable source, otherwise `Valid`. A spec error
 * wins because fixing the source would not make the Template usable.
 */
export function deriveTemplatePhase(conditions: readonly Condition[] | undefined): TemplatePhase {
  if (findCondition(conditions, TemplateConditionType.Valid)?.status === 'False') return 'Invalid'
  const dryRun = findCondition(conditions, TemplateConditionType.DryRunRendered)
  if (dryRun?.status === 'False' && dryRun.reason === Reason.RenderFailed) return 'Invalid'
  if (findCondition(conditions, TemplateConditionType.SourceAccessible)?.status === 'False') return 'Error'
  return 'Valid'
}
