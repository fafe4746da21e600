// The admission judge: one request plus cache lookups in, one decision out.
// Pure: no I/O, no clock, inputs are never modified.
//
// Order (docs/admission-decisions.md explains each step):
//   1. request exemptions (exemptions.ts), first match wins
//   2. the request must carry the objects the API server always sends
//   3. ownership, read from the stored object, or for requests that carry no
//      labels (/scale, pods/eviction, pods/binding) from the cached object:
//      annotation -> TemplateInstance -> UID label -> owner deleting -> Template
//   4. the Template's sync mode: off allows, revert warns, strict judges
//   5. strict: a DELETE (an eviction is one) is denied; an UPDATE, of the
//      object or of a subresource, is denied when compare() reports a change
//      outside ignoreFields. Subresources are judged as subresources.ts says.

import type { KubeObject } from '../api/meta.ts'
import type { SyncMode } from '../api/names.ts'
import { syncModeOf, type Template } from '../api/template.ts'
import type { TemplateInstance } from '../api/templateinstance.ts'
import { compare } from '../drift/compare.ts'
import { type EnforcedIgnore, enforcedIgnore } from '../drift/ignore-cache.ts'
import type { Change } from '../drift/types.ts'
import { compileIgnoreFields, type CompiledIgnore } from '../fieldpath/compile.ts'
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
  otherVersionDenied,
  revertDeleteWarning,
  revertWarning,
  updateDenied,
  type Ownership,
} from './messages.ts'
import {
  formatInstanceRef,
  type InstanceRef,
  readInstanceRef,
  readInstanceUid,
  readRenderedVersion,
  readTemplateRef,
} from '../api/ownership.ts'
import { handlingOf, type SubresourceHandling } from './subresources.ts'
import { componentMayWrite } from './components.ts'
import { DEFAULT_COMPONENTS, writerOfUser } from '../api/writers.ts'
import type { AdmissionRequest } from './types.ts'

export function decide(req: AdmissionRequest, lookups: AdmissionLookups, config: AdmissionConfig): Decision {
  const facts: RequestFacts = { req, lookups, config }
  const target = describeTarget(req)

  const exempt = firstExemption(facts)
  if (exempt !== undefined) return allow(exempt, allowMessage(exempt, target))

  const handling = handlingOf(req)
  const missing = missingObjects(req, handling)
  if (missing !== undefined) return deny('MalformedRequest', malformedRequest(req.operation, missing))

  const owned = resolveOwnership(facts, handling, target)
  if (isDecision(owned)) return owned

  return { ...judgeByMode(facts, owned, target), mode: owned.mode }
}

function judgeByMode(facts: RequestFacts, owned: Owned, target: string): Decision {
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

/** What the request does to the stored object: an eviction deletes it, a binding updates it. */
export function effectiveOperation(req: AdmissionRequest, handling: SubresourceHandling): 'UPDATE' | 'DELETE' {
  if (handling === 'eviction') return 'DELETE'
  return req.operation === 'DELETE' ? 'DELETE' : 'UPDATE'
}

/** UPDATE needs both objects, DELETE the stored one, a binding its Binding; the API server always sends them. */
export function missingObjects(req: AdmissionRequest, handling: SubresourceHandling = handlingOf(req)): string | undefined {
  const hasOld = isObject(req.oldObject)
  if (req.operation === 'UPDATE') {
    if (!hasOld) return 'oldObject'
    if (!isObject(req.object)) return 'object'
  }
  if (req.operation === 'DELETE' && !hasOld) return 'oldObject'
  if (handling === 'binding' && !isObject(req.object)) return 'object'
  return undefined
}

// ---- step 3: ownership -----------------------------------------------------

interface Owned {
  readonly owner: string
  readonly template: string
  /** Absent for an orphan: its instance is gone or was replaced by a namesake. */
  readonly instance?: TemplateInstance
  /** The owner named by instance-ref no longer exists (or is another object of that name). */
  readonly orphan?: true
  readonly mode: SyncMode
  readonly templateObject: Template
  readonly handling: SubresourceHandling
  /** The object that carries the ownership metadata: the stored object, or the cached one. */
  readonly carrier: KubeObject
}

function resolveOwnership(facts: RequestFacts, handling: SubresourceHandling, target: string): Owned | Decision {
  const { req, lookups } = facts
  const carrier = ownershipCarrier(req, lookups, handling)
  if (carrier === undefined) {
    const reason: AllowReason = handling === 'scale' ? 'ScaleTargetUnknown' : 'PodNotCached'
    return allow(reason, allowMessage(reason, target))
  }

  const reading = readInstanceRef(carrier)
  if (reading.kind === 'absent') return allow('NotManaged', allowMessage('NotManaged', target))
  if (reading.kind === 'malformed') return allow('OwnerRefMalformed', allowMessage('OwnerRefMalformed', target))
  const ref = reading.ref
  const owner = formatInstanceRef(ref)

  const instance = lookups.getInstance(ref.namespace, ref.name)
  const stampedTemplate = readTemplateRef(carrier)
  const gone: AllowReason | undefined = instance === undefined ? 'OwnerNotFound' : checkOwnerUid(carrier, instance)
  if (gone !== undefined) {
    // An orphan: its instance was deleted without cleanup (its finalizer
    // removed), or replaced by a namesake. The Template that rendered it still
    // holds it when that Template is strict, or the instance's author could
    // switch strict off by orphaning what she may not edit (docs/security.md).
    const orphan = gone === 'OwnerUidMissing' ? undefined : strictOrphan(lookups, stampedTemplate, owner, handling, carrier)
    return orphan ?? allow(gone, allowMessage(gone, target, owner), { owner })
  }
  if (instance === undefined) return allow('OwnerNotFound', allowMessage('OwnerNotFound', target, owner), { owner })

  if (ownerDeletingAllows(req, handling, carrier, instance)) {
    return allow('OwnerDeleting', allowMessage('OwnerDeleting', target, owner), { owner })
  }

  // The Template that rendered the object, not the one the instance names now:
  // the instance's author may point it elsewhere (docs/security.md).
  const templateRef = stampedTemplate ?? templateRefOf(instance, ref)
  const template = templateRef === undefined ? undefined : lookups.getTemplate(templateRef.namespace, templateRef.name)
  const templateName = templateRef === undefined ? '?' : formatInstanceRef(templateRef)
  if (template === undefined) {
    return allow('TemplateNotFound', allowMessage('TemplateNotFound', target, owner, templateName), { owner })
  }
  return { owner, template: templateName, instance, mode: syncModeOf(template), templateObject: template, handling, carrier }
}

/** An orphan whose stamped Template exists and is strict, judged as that Template's; undefined otherwise. */
function strictOrphan(
  lookups: AdmissionLookups,
  stamped: InstanceRef | undefined,
  owner: string,
  handling: SubresourceHandling,
  carrier: KubeObject,
): Owned | undefined {
  if (stamped === undefined) return undefined
  const template = lookups.getTemplate(stamped.namespace, stamped.name)
  if (template === undefined || syncModeOf(template) !== 'strict') return undefined
  return { owner, template: formatInstanceRef(stamped), mode: 'strict', templateObject: template, handling, carrier, orphan: true }
}

/**
 * The object that carries the ownership metadata. For /scale the request
 * holds autoscaling/v1 Scale objects, and for pods/eviction and pods/binding
 * an Eviction or a Binding: none has the object's labels or annotations, so
 * the object comes from the cache; a stale entry (other UID) is not used.
 */
export function ownershipCarrier(
  req: AdmissionRequest,
  lookups: AdmissionLookups,
  handling: SubresourceHandling = handlingOf(req),
): KubeObject | undefined {
  const stored = req.oldObject ?? undefined
  if (handling === 'eviction' || handling === 'binding') {
    const name = req.name || req.object?.metadata?.name || ''
    return lookups.getPod?.(req.namespace ?? '', name)
  }
  if (handling !== 'scale') return stored
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

function isTerminating(obj: KubeObject | TemplateInstance | undefined): boolean {
  const ts = obj?.metadata?.deletionTimestamp
  return typeof ts === 'string' && ts !== ''
}

/**
 * Cleanup of a TemplateInstance deletes what it rendered, and an object it
 * already deleted may need updates (finalizers of other controllers) to go:
 * nothing should stand in the way. A live object is still guarded.
 */
export function ownerDeletingAllows(
  req: AdmissionRequest,
  handling: SubresourceHandling,
  carrier: KubeObject,
  instance: TemplateInstance,
): boolean {
  if (!isTerminating(instance)) return false
  return effectiveOperation(req, handling) === 'DELETE' || isTerminating(carrier)
}

function templateRefOf(instance: TemplateInstance, ref: InstanceRef): InstanceRef | undefined {
  const t = instance.spec?.templateRef
  if (t === undefined || typeof t.name !== 'string' || t.name === '') return undefined
  // The schema requires a namespace; falling back keeps an old object judgeable.
  const namespace = typeof t.namespace === 'string' && t.namespace !== '' ? t.namespace : ref.namespace
  return { namespace, name: t.name }
}

// ---- steps 4-5: judging by mode ---------------------------------------------

/** What the Template leaves out, by the one rule for an invalid list (src/drift/ignore-cache.ts). */
function chooseIgnore(lookups: AdmissionLookups, template: Template): EnforcedIgnore {
  return enforcedIgnore(() => lookups.getIgnore(template))
}

/**
 * While an object is being deleted, the finalizers of other controllers must
 * be able to go, or it would stay in Terminating: they are exempt then, on
 * top of the Template's list (and spec.finalizers of a Namespace, which its
 * finalize subresource writes). Compiled once per compiled list.
 */
const TERMINATING_EXEMPT = Object.freeze(['metadata.finalizers'])
const NAMESPACE_TERMINATING_EXEMPT = Object.freeze(['metadata.finalizers', 'spec.finalizers'])
const withTerminating = new WeakMap<CompiledIgnore, { plain: CompiledIgnore; namespace: CompiledIgnore }>()

function terminatingIgnore(ignore: CompiledIgnore, carrier: KubeObject): CompiledIgnore {
  let entry = withTerminating.get(ignore)
  if (entry === undefined) {
    entry = {
      plain: compileIgnoreFields([...ignore.entries, ...TERMINATING_EXEMPT], { terminating: true }),
      namespace: compileIgnoreFields([...ignore.entries, ...NAMESPACE_TERMINATING_EXEMPT], { terminating: true }),
    }
    withTerminating.set(ignore, entry)
  }
  const isNamespace = carrier.kind === 'Namespace' && (carrier.apiVersion === 'v1' || carrier.apiVersion === undefined)
  return isNamespace ? entry.namespace : entry.plain
}

/** Nothing ignored but the server-managed fields; the protected keys are compared as always. */
const NOTHING_IGNORED: EnforcedIgnore = Object.freeze({ ignore: compileIgnoreFields([]) })

/** "group/version" of a request's kind, as an apiVersion is written ("v1" for the core group). */
function requestApiVersion(req: AdmissionRequest): string {
  const { group, version } = req.kind
  return group === '' ? version : `${group}/${version}`
}

/**
 * The apiVersion the object was rendered in, when this request writes it in
 * another one. ignoreFields names fields of the rendered version; in another
 * version a field may live elsewhere (autoscaling/v1 carries v2 fields in
 * annotations), so such a request is compared in full (docs/admission-versions.md).
 * A Scale, an Eviction or a Binding is another kind altogether and judged as such.
 */
export function foreignVersion(req: AdmissionRequest, owned: Pick<Owned, 'handling' | 'carrier'>): string | undefined {
  if (owned.handling !== 'object') return undefined
  const rendered = readRenderedVersion(owned.carrier)
  return rendered !== undefined && rendered !== requestApiVersion(req) ? rendered : undefined
}

/** The changes found, at most MAX_PATHS_IN_AUDIT, and whether the comparison stopped before the end. */
interface Changes {
  readonly changes: readonly Change[]
  readonly more: boolean
}

/**
 * The changes that matter for this request, collected up to the number a
 * decision reports: /scale is judged on spec.replicas alone, a binding on the
 * annotations it would copy onto the Pod, everything else on both objects.
 */
export function changesOf(req: AdmissionRequest, owned: Pick<Owned, 'handling' | 'carrier'>, ignore: CompiledIgnore): Changes {
  const effective = isTerminating(owned.carrier) ? terminatingIgnore(ignore, owned.carrier) : ignore
  const options = { maxChanges: MAX_PATHS_IN_AUDIT + 1 }
  let found: Change[]
  switch (owned.handling) {
    case 'scale':
      found = compare(replicasOnly(req.oldObject), replicasOnly(req.object), effective, options)
      break
    case 'binding':
      found = compare(annotationsOnly(owned.carrier), boundAnnotations(owned.carrier, req.object), effective, options)
      break
    default:
      found = compare(req.oldObject, req.object, effective, options)
  }
  return found.length > MAX_PATHS_IN_AUDIT ? { changes: found.slice(0, MAX_PATHS_IN_AUDIT), more: true } : { changes: found, more: false }
}

/** A Scale's spec.replicas is the scaled object's spec.replicas; compare it at the same path. */
function replicasOnly(scale: KubeObject | null | undefined): { spec: { replicas: unknown } } {
  const spec = scale?.spec
  return { spec: { replicas: isObject(spec) ? spec.replicas : undefined } }
}

function annotationsOnly(pod: KubeObject): { metadata: { annotations: unknown } } {
  return { metadata: { annotations: pod.metadata?.annotations } }
}

/** The API server copies every annotation of the Binding onto the Pod, over the Pod's own. */
function boundAnnotations(pod: KubeObject, binding: KubeObject | null | undefined): { metadata: { annotations: unknown } } {
  const added = binding?.metadata?.annotations
  if (!isObject(added) || Object.keys(added).length === 0) return annotationsOnly(pod)
  const merged: Record<string, unknown> = {}
  for (const source of [pod.metadata?.annotations, added]) {
    if (!isObject(source)) continue
    for (const k of Object.keys(source))
      Object.defineProperty(merged, k, { value: source[k], enumerable: true, writable: true, configurable: true })
  }
  return { metadata: { annotations: merged } }
}

function judgeRevert(facts: RequestFacts, owned: Owned, target: string): Decision {
  const { req, lookups } = facts
  const warn = (found?: Changes): Decision =>
    allow('SyncRevert', allowMessage('SyncRevert', target, owned.owner, owned.template), {
      owner: owned.owner,
      warnings: [effectiveOperation(req, owned.handling) === 'DELETE' ? revertDeleteWarning(owned.owner) : revertWarning(owned.owner)],
      changedPaths: found?.changes.map((c) => c.path),
      morePaths: found?.more,
    })
  if (effectiveOperation(req, owned.handling) === 'DELETE') return warn()
  let found: Changes
  try {
    const ignore = foreignVersion(req, owned) === undefined ? chooseIgnore(lookups, owned.templateObject) : NOTHING_IGNORED
    found = changesOf(req, owned, ignore.ignore)
  } catch {
    // Revert never denies; without a verdict the honest answer is the warning.
    return warn()
  }
  if (found.changes.length === 0) return unchanged(owned, target)
  return warn(found)
}

function judgeStrict(facts: RequestFacts, owned: Owned, target: string): Decision {
  const { req, lookups } = facts
  const who: Ownership = { instance: owned.owner, template: owned.template, ...(owned.orphan ? { orphan: true } : {}) }
  if (effectiveOperation(req, owned.handling) === 'DELETE') return deny('ProtectedObjectDeleted', deleteDenied(target, who), owned.owner)

  let choice: EnforcedIgnore
  let found: Changes
  const foreign = foreignVersion(req, owned)
  try {
    choice = foreign === undefined ? chooseIgnore(lookups, owned.templateObject) : NOTHING_IGNORED
    found = changesOf(req, owned, choice.ignore)
  } catch {
    return deny('EvaluationFailed', evaluationFailed(target, who), owned.owner)
  }
  if (found.changes.length === 0) return unchanged(owned, target)
  if (componentWrite(facts, owned, foreign, choice))
    return allow('ComponentWrite', allowMessage('ComponentWrite', target, owned.owner), { owner: owned.owner })
  const paths = found.changes.map((c) => c.path)
  if (foreign !== undefined) {
    const message = otherVersionDenied(target, who, paths, requestApiVersion(req), foreign, found.more)
    return deny('ProtectedFieldChanged', message, owned.owner, paths, found.more)
  }
  if (choice.invalid !== undefined) {
    const message = ignoreInvalidDenied(target, who, paths, choice.invalid.message, found.more)
    return deny('IgnoreFieldsInvalid', message, owned.owner, paths, found.more)
  }
  return deny('ProtectedFieldChanged', updateDenied(target, who, paths, found.more), owned.owner, paths, found.more)
}

/**
 * One of the cluster's components (by its userInfo, which cannot be forged)
 * writing only what the Template does not render, in the rendered version.
 * /scale, evictions and bindings carry no managedFields to tell: as before.
 */
function componentWrite(facts: RequestFacts, owned: Owned, foreign: string | undefined, choice: EnforcedIgnore): boolean {
  const { req, config } = facts
  if (owned.handling !== 'object' || foreign !== undefined || choice.invalid !== undefined) return false
  if (writerOfUser(req.userInfo, config.operatorUsernames, config.components ?? DEFAULT_COMPONENTS) !== 'component') return false
  const before = req.oldObject
  const after = req.object
  if (!isObject(before) || !isObject(after)) return false
  const ignore = isTerminating(owned.carrier) ? terminatingIgnore(choice.ignore, owned.carrier) : choice.ignore
  return componentMayWrite(before, after, ignore)
}

/** Nothing guarded changes; for an object being deleted, that is why it may go on. */
function unchanged(owned: Owned, target: string): Decision {
  const reason: AllowReason = isTerminating(owned.carrier) ? 'ObjectTerminating' : 'NoProtectedChange'
  return allow(reason, allowMessage(reason, target), { owner: owned.owner })
}

// ---- decision builders ------------------------------------------------------

interface AllowExtras {
  readonly owner?: string
  readonly warnings?: readonly string[]
  readonly changedPaths?: readonly string[] | undefined
  readonly morePaths?: boolean | undefined
}

function allow(reason: AllowReason, message: string, extras: AllowExtras = {}): Decision {
  return {
    allowed: true,
    reason,
    message,
    ...(extras.owner !== undefined && { owner: extras.owner }),
    ...(extras.warnings !== undefined && { warnings: extras.warnings }),
    ...(extras.changedPaths !== undefined && { changedPaths: extras.changedPaths }),
    ...(extras.morePaths === true && { morePaths: true }),
  }
}

function deny(reason: DenyReason, message: string, owner?: string, paths?: readonly string[], more?: boolean): Decision {
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
    ...(more === true && { morePaths: true }),
  }
}

function isDecision(x: Owned | Decision): x is Decision {
  return 'allowed' in x
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
