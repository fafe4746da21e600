// The result of judging one admission request, and what the judge may look up.
// A decision is data: the webhook turns it into a response, metrics count it
// by reason, logs print it. The reason says which rule decided.

import type { KubeObject } from '../api/meta.ts'
import type { SyncMode } from '../api/names.ts'
import type { Template } from '../api/template.ts'
import type { TemplateInstance } from '../api/templateinstance.ts'
import type { CompiledIgnore } from '../fieldpath/compile.ts'
import type { ComponentTable } from '../api/writers.ts'
import type { GroupVersionResource } from './types.ts'

export const ALLOW_REASONS = Object.freeze([
  /** The request comes from one of the operator's own identities. */
  'OperatorIdentity',
  /** CREATE or CONNECT: nothing stored is being changed. */
  'OperationNotGuarded',
  /** A subresource that changes nothing a Template renders (exec, logs, tokens, proxies); see subresources.ts. */
  'SubresourceNotGuarded',
  /** The namespace controller is emptying a namespace being deleted. */
  'NamespaceController',
  /** The garbage collector is cascading a deletion or dropping its finalizers. */
  'GarbageCollector',
  /** The object's namespace is terminating; blocking would wedge the namespace. */
  'NamespaceTerminating',
  /** The object is being deleted and nothing but its finalizers (or nothing guarded) changes. */
  'ObjectTerminating',
  /** No instance-ref annotation on the stored object: not rendered by template-sync. */
  'NotManaged',
  /** The instance-ref annotation is not "<namespace>/<name>". */
  'OwnerRefMalformed',
  /** A /scale request whose target object is not known to the caches. */
  'ScaleTargetUnknown',
  /** An eviction or binding of a Pod that is not in the cache of rendered Pods. */
  'PodNotCached',
  /** The TemplateInstance named by instance-ref does not exist. */
  'OwnerNotFound',
  /** The stored object lacks the instance-uid label: ownership was never established. */
  'OwnerUidMissing',
  /** A TemplateInstance of that name exists, but it is not the one that rendered the object. */
  'OwnerUidMismatch',
  /** DELETE (or an UPDATE of an object already being deleted) while the owning TemplateInstance is being deleted. */
  'OwnerDeleting',
  /** The owning TemplateInstance references a Template that does not exist. */
  'TemplateNotFound',
  /** The Template's sync mode is off. */
  'SyncOff',
  /** The Template's sync mode is revert: allowed, with a warning that it will be undone. */
  'SyncRevert',
  /** Nothing outside ignoreFields and server-managed fields changes. */
  'NoProtectedChange',
  /** One of the cluster's components writes only fields the Template does not render (docs/writers.md). */
  'ComponentWrite',
] as const)
export type AllowReason = (typeof ALLOW_REASONS)[number]

export const DENY_REASONS = Object.freeze([
  /** strict: DELETE of a rendered object. */
  'ProtectedObjectDeleted',
  /** strict: UPDATE changes a field outside ignoreFields. */
  'ProtectedFieldChanged',
  /** strict: ignoreFields does not compile, so nothing is exempt and something changed. */
  'IgnoreFieldsInvalid',
  /** strict: the comparison itself failed; refusing is the only safe answer. */
  'EvaluationFailed',
  /** UPDATE/DELETE without the objects the API server always sends. */
  'MalformedRequest',
] as const)
export type DenyReason = (typeof DENY_REASONS)[number]

export type DecisionReason = AllowReason | DenyReason

interface DecisionFields {
  /** Human-readable: why. For denials this is what the user sees. Never holds field values. */
  readonly message?: string
  /** Admission warnings shown by kubectl. */
  readonly warnings?: readonly string[]
  /** Keys without "/": the API server prefixes them with the webhook name. */
  readonly auditAnnotations?: Readonly<Record<string, string>>
  /** The changed paths that decided the outcome, in ignoreFields syntax: the first MAX_PATHS_IN_AUDIT. */
  readonly changedPaths?: readonly string[]
  /** More paths changed than changedPaths holds; the comparison stopped looking. */
  readonly morePaths?: boolean
  /** "<namespace>/<name>" of the owning TemplateInstance, once known. */
  readonly owner?: string
  /** The sync mode the object was judged under, once its Template is known (metrics count by it). */
  readonly mode?: SyncMode
}

export type Decision =
  | (DecisionFields & { readonly allowed: true; readonly reason: AllowReason })
  | (DecisionFields & { readonly allowed: false; readonly reason: DenyReason; readonly message: string })

/** Cache reads the judge needs. Every call must be a local lookup, never an API call. */
export interface AdmissionLookups {
  getInstance(namespace: string, name: string): TemplateInstance | undefined
  getTemplate(namespace: string, name: string): Template | undefined
  /** Compiled ignoreFields of the Template; may throw FieldPathError for an invalid list. */
  getIgnore(template: Template): CompiledIgnore
  isNamespaceTerminating(name: string): boolean
  /**
   * The object behind a /scale request (e.g. the Deployment). A Scale carries
   * no labels or annotations, so ownership can only be read from its target.
   * Without this lookup, /scale requests are allowed as ScaleTargetUnknown.
   */
  getScaleTarget?(resource: GroupVersionResource, namespace: string, name: string): KubeObject | undefined
  /**
   * A rendered Pod, for pods/eviction and pods/binding: an Eviction or a
   * Binding carries none of the Pod's labels or annotations. Without this
   * lookup they are allowed as PodNotCached.
   */
  getPod?(namespace: string, name: string): KubeObject | undefined
}

export interface AdmissionConfig {
  /** Exact usernames of the operator's service accounts, e.g. system:serviceaccount:ns:template-sync. */
  readonly operatorUsernames: readonly string[]
  /** The cluster's components (docs/writers.md); DEFAULT_COMPONENTS when absent. */
  readonly components?: ComponentTable
}

/** Audit annotation keys (the API server adds "<webhook name>/" in front). */
export const AUDIT_REASON = 'reason'
export const AUDIT_INSTANCE = 'instance'
export const AUDIT_PATHS = 'paths'

/** How many changed paths a denial message lists before "and N more". */
export const MAX_PATHS_IN_MESSAGE = 5
/**
 * How many changed paths go into the audit annotation. It is also the most the
 * comparison collects: a denial needs one change, its message and audit a few.
 */
export const MAX_PATHS_IN_AUDIT = 20
