// Condition types and reasons of both kinds, and the pure rules every status
// writer needs: when lastTransitionTime moves, how phase follows from
// conditions, and what Ready means (docs/ready-condition.md). Reasons are `as const` objects so that a typo is a type
// error and docs can be checked against the list.

import type { Condition, ConditionStatus, Timestamp } from './meta.ts'
import { LIMITS } from './schema.ts'
import type { InstancePhase } from './templateinstance.ts'
import type { Template, TemplatePhase } from './template.ts'

export const TemplateConditionType = {
  Valid: 'Valid',
  SourceAccessible: 'SourceAccessible',
  DryRunRendered: 'DryRunRendered',
  Deleting: 'Deleting',
  /** Whether some instance of the Template is refused for reaching beyond its namespace (docs/tenancy-grants.md). */
  InstancesWithinGrants: 'InstancesWithinGrants',
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
  // Template: SourceAccessible
  RepositoryReachable: 'RepositoryReachable',
  RepositoryUnreachable: 'RepositoryUnreachable',
  // Template: DryRunRendered
  RenderSucceeded: 'RenderSucceeded',
  RenderFailed: 'RenderFailed',
  DryRunSkipped: 'DryRunSkipped',
  // Template: Deleting
  DeletionBlocked: 'DeletionBlocked',
  // Template: InstancesWithinGrants (False carries the instance reason: ParameterSourceForbidden, ObjectForbidden)
  AllWithinGrants: 'AllWithinGrants',
  // TemplateInstance: TemplateResolved
  TemplateNotFound: 'TemplateNotFound',
  // TemplateInstance: TargetNamespaceAllowed
  NamespaceNotPermitted: 'NamespaceNotPermitted',
  // TemplateInstance: ParametersValid
  AllParametersResolved: 'AllParametersResolved',
  InvalidParameter: 'InvalidParameter',
  OverrideNotAllowed: 'OverrideNotAllowed',
  ParameterResolutionFailed: 'ParameterResolutionFailed',
  /** A valueFrom reads outside the instance namespace, and the Template does not grant it (docs/tenancy-grants.md). */
  ParameterSourceForbidden: 'ParameterSourceForbidden',
  /** ParametersValid=True: every value resolved, but a Secret-sourced one is not recorded in status despite exposeInStatus. */
  SecretNotExposed: 'SecretNotExposed',
  /** ParametersValid=True: every value resolved, but an exposeInStatus one is too large for the status and not recorded there. */
  ExposedValueTooLarge: 'ExposedValueTooLarge',
  /** ParametersValid=True: the API server refused the status as too large; it was written without parameter values and outputs. */
  StatusTooLarge: 'StatusTooLarge',
  // TemplateInstance: Rendered
  TemplateExecutionFailed: 'TemplateExecutionFailed',
  /** spec.helm: the chart could not be fetched (the Template's SourceAccessible or Valid says why); retried every 60 s. */
  ChartUnavailable: 'ChartUnavailable',
  /** The render places an object outside the instance namespace (or a cluster-scoped one) that the Template does not grant. */
  ObjectForbidden: 'ObjectForbidden',
  /**
   * A render ran past the render time limit and was stopped: Rendered=False on
   * the instance, Valid=False and DryRunRendered=False on a Template whose
   * dry run (or parse) did (docs/render-time-limit.md).
   */
  RenderTimeout: 'RenderTimeout',
  // TemplateInstance: Applied
  ApplyFailed: 'ApplyFailed',
  /** An object to apply exists without our ownership metadata; it is never adopted silently. */
  OwnershipConflict: 'OwnershipConflict',
  /** The server-side dry-run gate rejected the new render; nothing was applied. */
  DryRunFailed: 'DryRunFailed',
  /** The new render changes a field the API server does not allow to change (docs/immutable-fields.md). */
  ImmutableFieldChanged: 'ImmutableFieldChanged',
  /** A rendered kind is not served by the API server (its CRD is not installed); nothing was applied. */
  KindNotFound: 'KindNotFound',
  // TemplateInstance: OutputsResolved
  OutputsResolved: 'OutputsResolved',
  NoOutputs: 'NoOutputs',
  OutputSourceNotFound: 'OutputSourceNotFound',
  OutputExtractionFailed: 'OutputExtractionFailed',
  /** A frozen instance cannot name an output source from a parameter without exposeInStatus. */
  OutputParameterNotExposed: 'OutputParameterNotExposed',
  /** An extracted value is too large for the status and was left out of status.outputs. */
  OutputValueTooLarge: 'OutputValueTooLarge',
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
  /** Ready=False: the instance applied, but its Template is Valid=False (e.g. an invalid ignoreFields entry). */
  TemplateInvalid: 'TemplateInvalid',
  /** Ready=False: a pass failed with an error no other condition names (the step and the error); retried with backoff. */
  ReconcileError: 'ReconcileError',
} as const
export type Reason = (typeof Reason)[keyof typeof Reason]

/** Which reasons each condition type may carry (Ready=False copies the first failing reason). */
export const REASONS_BY_CONDITION: Readonly<Record<TemplateConditionType | InstanceConditionType, readonly Reason[]>> = Object.freeze({
  Valid: [Reason.ValidationSucceeded, Reason.ValidationFailed, Reason.SpecInvalid, Reason.RenderTimeout],
  SourceAccessible: [Reason.RepositoryReachable, Reason.RepositoryUnreachable],
  DryRunRendered: [Reason.RenderSucceeded, Reason.RenderFailed, Reason.DryRunSkipped, Reason.RenderTimeout],
  Deleting: [Reason.DeletionBlocked],
  InstancesWithinGrants: [Reason.AllWithinGrants, Reason.ParameterSourceForbidden, Reason.ObjectForbidden],
  TemplateResolved: [Reason.Success, Reason.TemplateNotFound],
  TargetNamespaceAllowed: [Reason.Success, Reason.NamespaceNotPermitted],
  ParametersValid: [
    Reason.AllParametersResolved,
    Reason.SecretNotExposed,
    Reason.ExposedValueTooLarge,
    Reason.StatusTooLarge,
    Reason.InvalidParameter,
    Reason.OverrideNotAllowed,
    Reason.ParameterResolutionFailed,
    Reason.ParameterSourceForbidden,
  ],
  Rendered: [Reason.Success, Reason.TemplateExecutionFailed, Reason.ChartUnavailable, Reason.ObjectForbidden, Reason.RenderTimeout],
  Applied: [
    Reason.Success,
    Reason.ApplyFailed,
    Reason.OwnershipConflict,
    Reason.DryRunFailed,
    Reason.ImmutableFieldChanged,
    Reason.KindNotFound,
  ],
  OutputsResolved: [
    Reason.OutputsResolved,
    Reason.NoOutputs,
    Reason.OutputSourceNotFound,
    Reason.OutputExtractionFailed,
    Reason.OutputParameterNotExposed,
    Reason.OutputValueTooLarge,
  ],
  Synced: [Reason.SyncActive, Reason.Frozen, Reason.SyncPending, Reason.DriftConflict, Reason.WatchFailed],
  Ready: [Reason.Reconciled, Reason.Pending, Reason.TemplateInvalid, Reason.ReconcileError],
})

/** Synced reasons that make Ready=False: drift is not being corrected. Frozen and SyncPending do not. */
export const SYNC_FAILURES: readonly Reason[] = Object.freeze([Reason.DriftConflict, Reason.WatchFailed])

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
    message: boundMessage(next.message ?? ''),
    lastTransitionTime: previous !== undefined && previous.status === next.status ? previous.lastTransitionTime : toTimestamp(now),
  }
  const generation = next.observedGeneration ?? previous?.observedGeneration
  if (generation !== undefined) merged.observedGeneration = generation
  if (previous !== undefined && sameCondition(previous, merged)) return list
  if (previous === undefined) return [...list, merged]
  return list.map((c, i) => (i === at ? merged : c))
}

/**
 * A message within the schema's bound: a longer one (an API error quoting a
 * large value) would make the API server refuse the whole status write, and
 * with it every condition.
 */
export function boundMessage(message: string): string {
  const limit = LIMITS.conditionMessage
  // The schema counts characters (code points); a UTF-16 length within the bound is within it too.
  if (message.length <= limit) return message
  const chars = Array.from(message)
  if (chars.length <= limit) return message
  const tail = ` ... (cut: ${chars.length} characters in all)`
  return chars.slice(0, limit - tail.length).join('') + tail
}

/** The list without a condition of that type; the input itself when it has none. Never mutates input. */
export function removeCondition(conditions: readonly Condition[] | undefined, type: string): readonly Condition[] {
  const list = conditions ?? []
  return list.some((c) => c.type === type) ? list.filter((c) => c.type !== type) : list
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

/** What Ready needs to know about the Template an instance uses. */
export type TemplateForReady = Pick<Template, 'metadata' | 'status'>

/**
 * The Template's Valid=False condition when it speaks for the Template's
 * current generation; undefined when the Template is valid, not validated
 * yet, or validated only at an older generation (the Template reconciler is
 * about to judge the new spec, and Ready follows once it has).
 */
export function templateInvalidity(template: TemplateForReady | undefined): Condition | undefined {
  const valid = findCondition(template?.status?.conditions, TemplateConditionType.Valid)
  if (valid?.status !== 'False') return undefined
  const generation = template?.metadata?.generation
  if (valid.observedGeneration !== undefined && generation !== undefined && valid.observedGeneration !== generation) return undefined
  return valid
}

/** Whether two versions of a Template tell their instances the same about validity (a change must re-derive their Ready). */
export function sameTemplateValidity(a: TemplateForReady | undefined, b: TemplateForReady | undefined): boolean {
  const x = templateInvalidity(a)
  const y = templateInvalidity(b)
  return x?.reason === y?.reason && x?.message === y?.message
}

/**
 * Ready answers "is this instance doing what its Template says?"
 * (docs/ready-condition.md). In order:
 *
 *   1. the first gating condition that is False: Ready=False with its reason
 *      and message (reconcile order);
 *   2. the Template is Valid=False: Ready=False/TemplateInvalid, even though
 *      the instance rendered and applied;
 *   3. Synced=False/DriftConflict or WatchFailed: Ready=False with that
 *      reason, since drift is not being corrected; Synced=False/Frozen (mode
 *      off) is the normal state and keeps Ready=True;
 *   4. some gate not evaluated yet: Ready=Unknown/Pending;
 *   5. otherwise Ready=True/Reconciled.
 *
 * Phase does not follow (deriveInstancePhase): the v2 API defines it from the
 * gating conditions alone.
 */
export function deriveReadyCondition(conditions: readonly Condition[] | undefined, template?: TemplateForReady): ConditionUpdate {
  const notReady = (reason: string, message: string): ConditionUpdate => ({
    type: InstanceConditionType.Ready,
    status: 'False',
    reason,
    message,
  })
  const failing = firstFailingGate(conditions)
  if (failing !== undefined) return notReady(failing.reason, failing.message)
  const invalid = templateInvalidity(template)
  if (invalid !== undefined) {
    const name = `${template?.metadata?.namespace ?? ''}/${template?.metadata?.name ?? ''}`
    return notReady(
      Reason.TemplateInvalid,
      `Template ${name} is Valid=False/${invalid.reason}${invalid.message ? `: ${invalid.message}` : ''}`,
    )
  }
  const synced = findCondition(conditions, InstanceConditionType.Synced)
  if (synced?.status === 'False' && (SYNC_FAILURES as readonly string[]).includes(synced.reason)) {
    return notReady(synced.reason, synced.message)
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

/** An instance refused for reaching beyond its namespace, as its conditions say. */
export interface GrantRefusal {
  /** "<namespace>/<name>" of the instance. */
  readonly instance: string
  readonly reason: typeof Reason.ParameterSourceForbidden | typeof Reason.ObjectForbidden
  readonly message: string
}

/** The refusal an instance's conditions report, if any. */
export function grantRefusalOf(instance: {
  metadata?: { namespace?: string; name?: string }
  status?: { conditions?: readonly Condition[] }
}): GrantRefusal | undefined {
  const key = `${instance.metadata?.namespace ?? ''}/${instance.metadata?.name ?? ''}`
  for (const [type, reason] of [
    [InstanceConditionType.ParametersValid, Reason.ParameterSourceForbidden],
    [InstanceConditionType.Rendered, Reason.ObjectForbidden],
  ] as const) {
    const c = findCondition(instance.status?.conditions, type)
    if (c?.status === 'False' && c.reason === reason) return { instance: key, reason, message: c.message ?? '' }
  }
  return undefined
}

/** How many refusals a Template's InstancesWithinGrants message spells out. */
const REFUSALS_SHOWN = 3

/** The Template's InstancesWithinGrants condition from its instances' refusals. */
export function instancesWithinGrants(refusals: readonly GrantRefusal[]): ConditionUpdate {
  const first = refusals[0]
  if (first === undefined)
    return { type: TemplateConditionType.InstancesWithinGrants, status: 'True', reason: Reason.AllWithinGrants, message: '' }
  const shown = refusals.slice(0, REFUSALS_SHOWN).map((r) => `${r.instance}: ${r.message}`)
  const more = refusals.length > REFUSALS_SHOWN ? `; and ${refusals.length - REFUSALS_SHOWN} more` : ''
  return {
    type: TemplateConditionType.InstancesWithinGrants,
    status: 'False',
    reason: first.reason,
    message: `${refusals.length} TemplateInstance(s) reach beyond their namespace without a grant of this Template: ${shown.join('; ')}${more}`,
  }
}
