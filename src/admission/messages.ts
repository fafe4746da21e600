// Every sentence the admission judge produces. Messages name objects and
// field paths, never field values: a denial is shown to the caller and lands
// in audit logs, and the object may be a Secret.

import type { AllowReason } from './decision.ts'
import { MAX_PATHS_IN_MESSAGE } from './decision.ts'
import type { AdmissionRequest } from './types.ts'

/** "ConfigMap team-a/web", or "deployments/scale team-a/web" for a subresource. */
export function describeTarget(req: AdmissionRequest): string {
  const what = req.subResource ? `${req.resource.resource}/${req.subResource}` : req.kind.kind
  const name = req.name ?? req.oldObject?.metadata?.name ?? ''
  return req.namespace ? `${what} ${req.namespace}/${name}` : `${what} ${name}`
}

/**
 * The first paths, then "and N more". `more` says the comparison stopped
 * before the end, so N is only the least there are.
 */
export function listPaths(paths: readonly string[], max: number = MAX_PATHS_IN_MESSAGE, more = false): string {
  const shown = paths.slice(0, max).join(', ')
  if (more) return `${shown} and at least ${Math.max(paths.length - max, 0) + 1} more`
  return paths.length > max ? `${shown} and ${paths.length - max} more` : shown
}

export interface Ownership {
  readonly instance: string
  readonly template: string
  /** The instance is gone (or replaced by a namesake): the Template that rendered the object still holds it. */
  readonly orphan?: true
}

function managedBy(target: string, o: Ownership): string {
  if (o.orphan)
    return `${target} was rendered by Template ${o.template} (sync.mode strict) for TemplateInstance ${o.instance}, which no longer exists; it stays protected`
  return `${target} is managed by TemplateInstance ${o.instance} (Template ${o.template}, sync.mode strict)`
}

export function deleteDenied(target: string, o: Ownership): string {
  if (o.orphan)
    return (
      `${managedBy(target, o)} and cannot be deleted. ` +
      `It is released when the owners of Template ${o.template} change its sync.mode (docs/ownership-conflicts.md).`
    )
  return (
    `${managedBy(target, o)} and cannot be deleted. ` +
    `To remove it, change Template ${o.template} so it no longer renders this object, ` +
    `delete TemplateInstance ${o.instance}, or change the Template's sync.mode.`
  )
}

export function updateDenied(target: string, o: Ownership, paths: readonly string[], more = false): string {
  if (o.orphan)
    return (
      `${managedBy(target, o)}; this change touches protected fields: ${listPaths(paths, MAX_PATHS_IN_MESSAGE, more)}. ` +
      `It is released when the owners of Template ${o.template} change its sync.mode (docs/ownership-conflicts.md).`
    )
  return (
    `${managedBy(target, o)} and this change touches protected fields: ${listPaths(paths, MAX_PATHS_IN_MESSAGE, more)}. ` +
    `To make it, edit Template ${o.template}, add the paths to its sync.ignoreFields, or change its sync.mode.`
  )
}

/** An UPDATE written in another apiVersion than the rendered one, where nothing is exempt. */
export function otherVersionDenied(
  target: string,
  o: Ownership,
  paths: readonly string[],
  written: string,
  rendered: string,
  more = false,
): string {
  return (
    `${managedBy(target, o)} and this change touches fields: ${listPaths(paths, MAX_PATHS_IN_MESSAGE, more)}. ` +
    `It was written as ${written}, but the Template renders ${rendered}: sync.ignoreFields names fields of ${rendered}, ` +
    `so a change in another version is never exempt. Write it as ${rendered}, or edit Template ${o.template}.`
  )
}

export function ignoreInvalidDenied(target: string, o: Ownership, paths: readonly string[], problem: string, more = false): string {
  return (
    `${managedBy(target, o)} and this change touches fields: ${listPaths(paths, MAX_PATHS_IN_MESSAGE, more)}. ` +
    `The Template's sync.ignoreFields is invalid (${problem}), so no field is exempt until it is fixed. ` +
    `Fix sync.ignoreFields in Template ${o.template}, or change its sync.mode.`
  )
}

export function evaluationFailed(target: string, o: Ownership): string {
  return (
    `${managedBy(target, o)} and the change could not be checked, so it is refused. ` +
    `Retry; if it keeps failing, see the template-sync webhook logs.`
  )
}

export function malformedRequest(operation: string, missing: string): string {
  return `${operation} request without ${missing}; the request cannot be judged`
}

export function revertWarning(instance: string): string {
  return `this change will be reverted by TemplateInstance ${instance}`
}

/**
 * A DELETE under revert is not undone but followed by a new object of the
 * same name (a new UID): say so, since `kubectl get` right after shows it again.
 */
export function revertDeleteWarning(instance: string): string {
  return `this object will be re-created by TemplateInstance ${instance} right after it is deleted`
}

/** Why a request was let through; for logs and the review's status message. */
export function allowMessage(reason: AllowReason, target: string, owner?: string, template?: string): string {
  switch (reason) {
    case 'OperatorIdentity':
      return 'request made by the operator'
    case 'OperationNotGuarded':
      return 'CREATE and CONNECT are not guarded'
    case 'SubresourceNotGuarded':
      return `${target} changes nothing a Template renders`
    case 'NamespaceController':
      return 'the namespace controller is emptying a namespace'
    case 'GarbageCollector':
      return 'the garbage collector is cleaning up'
    case 'NamespaceTerminating':
      return `the namespace of ${target} is terminating`
    case 'ObjectTerminating':
      return `${target} is being deleted and nothing but its finalizers changes outside sync.ignoreFields`
    case 'NotManaged':
      return `${target} carries no instance-ref annotation`
    case 'OwnerRefMalformed':
      return `the instance-ref annotation of ${target} is not "<namespace>/<name>"`
    case 'ScaleTargetUnknown':
      return `the object behind ${target} is not in the cache of managed objects`
    case 'PodNotCached':
      return `the Pod behind ${target} is not in the cache of rendered Pods`
    case 'OwnerNotFound':
      return `TemplateInstance ${owner ?? '?'} named by ${target} does not exist`
    case 'OwnerUidMissing':
      return `${target} has no instance-uid label, so TemplateInstance ${owner ?? '?'} has not taken ownership`
    case 'OwnerUidMismatch':
      return `TemplateInstance ${owner ?? '?'} is not the instance that rendered ${target} (UID differs)`
    case 'OwnerDeleting':
      return `TemplateInstance ${owner ?? '?'} is being deleted`
    case 'TemplateNotFound':
      return `Template ${template ?? '?'} referenced by TemplateInstance ${owner ?? '?'} does not exist`
    case 'SyncOff':
      return `Template ${template ?? '?'} has sync.mode off`
    case 'SyncRevert':
      return `Template ${template ?? '?'} has sync.mode revert; the change will be reverted`
    case 'NoProtectedChange':
      return `nothing outside sync.ignoreFields changes on ${target}`
  }
}
