// The admission judge: one request plus cache lookups in, one decision out.
// Pure: no I/O, no clock, inputs are never modified.
//
// Order (docs/admission-decisions.md explains each step):
//   1. request exemptions (exemptions.ts), first match wins
//   2. UPDATE/DELETE must carry the stored object
//   3. ownership, read from the stored object (the /scale target for /scale):
//      annotation -> TemplateInstance -> UID label -> owner deleting -> Template
//   4. the Template's sync mode: off allows, revert warns, strict judges
//   5. strict: DELETE is denied; UPDATE is denied when compare() reports a
//      change outside ignoreFields

import type { KubeObject } from '../api/meta.ts'
import { SYNC_MODES, type SyncMode } from '../api/names.ts'
import type { Template } from '../api/template.ts'
import type { TemplateInstance } from '../api/templateinstance.ts'
import { compare } from '../drift/compare.ts'
import type { Change } from '../drift/types.ts'
import { compileIgnoreFields, type CompiledIgnore } from '../fieldpath/compile.ts'
import { FieldPathError } from '../fieldpath/errors.ts'
import {
  AUDIT_INSTANCE,
  AUDIT_PATHS,
  AUDIT_REASON,
  MAX_PATHS_IN_AUDIT,
  type AdmissionConfig,
  type AdmissionLookups,
  type AllowReason,
  type Decision,
  type DenyReason,
} from './decision.ts'
import { firstExemption, type RequestFacts } from './exemptions.ts'
import {
  allowMessage,
  deleteDenied,
  describeTarget,
  evaluationFailed,
  ignoreInvalidDenied,
  malformedRequest,
  revertDeleteWarning,
  revertWarning,
  updateDenied,
  type Ownership,
} from './messages.ts'
import { formatInstanceRef, readInstanceRef, readInstanceUid, type InstanceRef } from './ownership.ts'
import type { AdmissionRequest } from './types.ts'

export function decide(req: AdmissionRequest, lookups: AdmissionLookups, config: AdmissionConfig): Decision {
  const facts: RequestFacts = { req, lookups, config }
  const target = describeTarget(req)

  const exempt = firstExemption(facts)
  if (exempt !== undefined) return allow(exempt, allowMessage(exempt, target))

  const missing = missingObjects(req)
  if (missing !== undefined) return deny('MalformedRequest', malformedRequest(req.operation, missing))

  const owned = resolveOwnership(facts, target)
  if (isDecision(owned)) return owned

  switch (owned.mode) {
    case 'off':
      return allow('SyncOff', allowMessage('SyncOff', target, owned.owner, owned.template), { owner: owned.owner })
    case 'revert':
      return judgeRevert(facts, owned, target)
    case 'strict':
      return judgeStrict(facts, owned, target)
  }
}

// ---- step 2: request shape -------------------------------------------------

/** UPDATE needs both objects and DELETE the stored one; the API server always sends them. */
export function missingObjects(req: AdmissionRequest): string | undefined {
  const hasOld = isObject(req.oldObject)
  if (req.operation === 'UPDATE') {
    if (!hasOld) return 'oldObject'
    if (!isObject(req.object)) return 'object'
  }
  if (req.operation === 'DELETE' && !hasOld) return 'oldObject'
  return undefined
}

// ---- step 3: ownership -----------------------------------------------------

interface Owned {
  readonly owner: string
  readonly template: string
  readonly instance: TemplateInstance
  readonly mode: SyncMode
  readonly templateObject: Template
}

function resolveOwnership(facts: RequestFacts, target: string): Owned | Decision {
  const { req, lookups } = facts
  const carrier = ownershipCarrier(req, lookups)
  if (carrier === undefined) return allow('ScaleTargetUnknown', allowMessage('ScaleTargetUnknown', target))

  const reading = readInstanceRef(carrier)
  if (reading.kind === 'absent') return allow('NotManaged', allowMessage('NotManaged', target))
  if (reading.kind === 'malformed') return allow('OwnerRefMalformed', allowMessage('OwnerRefMalformed', target))
  const ref = reading.ref
  const owner = formatInstanceRef(ref)

  const instance = lookups.getInstance(ref.namespace, ref.name)
  if (instance === undefined) return allow('OwnerNotFound', allowMessage('OwnerNotFound', target, owner), { owner })

  const uidVerdict = checkOwnerUid(carrier, instance)
  if (uidVerdict !== undefined) return allow(uidVerdict, allowMessage(uidVerdict, target, owner), { owner })

  if (ownerDeletingAllowsDelete(req, instance)) {
    return allow('OwnerDeleting', allowMessage('OwnerDeleting', target, owner), { owner })
  }

  const templateRef = templateRefOf(instance, ref)
  const template = templateRef === undefined ? undefined : lookups.getTemplate(templateRef.namespace, templateRef.name)
  const templateName = templateRef === undefined ? '?' : formatInstanceRef(templateRef)
  if (template === undefined) {
    return allow('TemplateNotFound', allowMessage('TemplateNotFound', target, owner, templateName), { owner })
  }
  return { owner, template: templateName, instance, mode: syncModeOf(template), templateObject: template }
}

/**
 * The object that carries the ownership metadata. For /scale the request
 * holds autoscaling/v1 Scale objects, which have no labels or annotations, so
 * the scaled object comes from the cache; a stale entry (other UID) is not used.
 */
export function ownershipCarrier(req: AdmissionRequest, lookups: AdmissionLookups): KubeObject | undefined {
  const stored = req.oldObject ?? undefined
  if (req.subResource !== 'scale') return stored
  const target = lookups.getScaleTarget?.(req.resource, req.namespace ?? '', req.name ?? '')
  if (target !== undefined && sameUid(target, stored)) return target
  // A Scale that does carry ownership (some custom scale implementations copy metadata) is used as is.
  return readInstanceRef(stored).kind === 'absent' ? undefined : stored
}

function sameUid(a: KubeObject, b: KubeObject | undefined): boolean {
  const ua = a.metadata?.uid
  const ub = b?.metadata?.uid
  return ua === undefined || ub === undefined || ua === ub
}

/** Enforcement only on behalf of the instance that rendered the object, never a namesake. */
export function checkOwnerUid(carrier: KubeObject, instance: TemplateInstance): AllowReason | undefined {
  const labelled = readInstanceUid(carrier)
  if (labelled === undefined) return 'OwnerUidMissing'
  return instance.metadata?.uid === labelled ? undefined : 'OwnerUidMismatch'
}

/** Cleanup of a TemplateInstance deletes what it rendered; nothing should stand in the way. */
export function ownerDeletingAllowsDelete(req: AdmissionRequest, instance: TemplateInstance): boolean {
  const ts = instance.metadata?.deletionTimestamp
  return req.operation === 'DELETE' && typeof ts === 'string' && ts !== ''
}

function templateRefOf(instance: TemplateInstance, ref: InstanceRef): InstanceRef | undefined {
  const t = instance.spec?.templateRef
  if (t === undefined || typeof t.name !== 'string' || t.name === '') return undefined
  // The schema requires a namespace; falling back keeps an old object judgeable.
  const namespace = typeof t.namespace === 'string' && t.namespace !== '' ? t.namespace : ref.namespace
  return { namespace, name: t.name }
}

/** The schema restricts mode to the enum and defaults it to off; anything else reads as off. */
export function syncModeOf(template: Template): SyncMode {
  const mode: unknown = template.spec?.sync?.mode
  return (SYNC_MODES as readonly unknown[]).includes(mode) ? (mode as SyncMode) : 'off'
}

// ---- steps 4-5: judging by mode ---------------------------------------------

interface IgnoreChoice {
  readonly ignore: CompiledIgnore
  /** Set when the Template's list does not compile; `ignore` then exempts nothing. */
  readonly invalid?: FieldPathError
}

function chooseIgnore(lookups: AdmissionLookups, template: Template): IgnoreChoice {
  try {
    return { ignore: lookups.getIgnore(template) }
  } catch (err) {
    if (!(err instanceof FieldPathError)) throw err
    return { ignore: compileIgnoreFields([]), invalid: err }
  }
}

/** The changes that matter for this request; /scale is judged on spec.replicas alone. */
export function changesOf(req: AdmissionRequest, ignore: CompiledIgnore): Change[] {
  if (req.subResource === 'scale') return compare(replicasOnly(req.oldObject), replicasOnly(req.object), ignore)
  return compare(req.oldObject, req.object, ignore)
}

/** A Scale's spec.replicas is the scaled object's spec.replicas; compare it at the same path. */
function replicasOnly(scale: KubeObject | null | undefined): { spec: { replicas: unknown } } {
  const spec = scale?.spec
  return { spec: { replicas: isObject(spec) ? spec.replicas : undefined } }
}

function judgeRevert(facts: RequestFacts, owned: Owned, target: string): Decision {
  const { req, lookups } = facts
  const warn = (paths?: readonly string[]): Decision =>
    allow('SyncRevert', allowMessage('SyncRevert', target, owned.owner, owned.template), {
      owner: owned.owner,
      warnings: [req.operation === 'DELETE' ? revertDeleteWarning(owned.owner) : revertWarning(owned.owner)],
      changedPaths: paths,
    })
  if (req.operation === 'DELETE') return warn()
  let changes: Change[]
  try {
    changes = changesOf(req, chooseIgnore(lookups, owned.templateObject).ignore)
  } catch {
    // Revert never denies; without a verdict the honest answer is the warning.
    return warn()
  }
  if (changes.length === 0) {
    return allow('NoProtectedChange', allowMessage('NoProtectedChange', target), { owner: owned.owner })
  }
  return warn(changes.map((c) => c.path))
}

function judgeStrict(facts: RequestFacts, owned: Owned, target: string): Decision {
  const { req, lookups } = facts
  const who: Ownership = { instance: owned.owner, template: owned.template }
  if (req.operation === 'DELETE') return deny('ProtectedObjectDeleted', deleteDenied(target, who), owned.owner)

  let choice: IgnoreChoice
  let changes: Change[]
  try {
    choice = chooseIgnore(lookups, owned.templateObject)
    changes = changesOf(req, choice.ignore)
  } catch {
    return deny('EvaluationFailed', evaluationFailed(target, who), owned.owner)
  }
  if (changes.length === 0) {
    return allow('NoProtectedChange', allowMessage('NoProtectedChange', target), { owner: owned.owner })
  }
  const paths = changes.map((c) => c.path)
  if (choice.invalid !== undefined) {
    return deny('IgnoreFieldsInvalid', ignoreInvalidDenied(target, who, paths, choice.invalid.message), owned.owner, paths)
  }
  return deny('ProtectedFieldChanged', updateDenied(target, who, paths), owned.owner, paths)
}

// ---- decision builders ------------------------------------------------------

interface AllowExtras {
  readonly owner?: string
  readonly warnings?: readonly string[]
  readonly changedPaths?: readonly string[] | undefined
}

function allow(reason: AllowReason, message: string, extras: AllowExtras = {}): Decision {
  return {
    allowed: true,
    reason,
    message,
    ...(extras.owner !== undefined && { owner: extras.owner }),
    ...(extras.warnings !== undefined && { warnings: extras.warnings }),
    ...(extras.changedPaths !== undefined && { changedPaths: extras.changedPaths }),
  }
}

function deny(reason: DenyReason, message: string, owner?: string, paths?: readonly string[]): Decision {
  const audit: Record<string, string> = { [AUDIT_REASON]: reason }
  if (owner !== undefined) audit[AUDIT_INSTANCE] = owner
  if (paths !== undefined && paths.length > 0) audit[AUDIT_PATHS] = JSON.stringify(paths.slice(0, MAX_PATHS_IN_AUDIT))
  return {
    allowed: false,
    reason,
    message,
    auditAnnotations: audit,
    ...(owner !== undefined && { owner }),
    ...(paths !== undefined && { changedPaths: paths }),
  }
}

function isDecision(x: Owned | Decision): x is Decision {
  return 'allowed' in x
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
