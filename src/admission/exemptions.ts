// Request-level exemptions: checks that need only the request, the config and
// the namespace cache. Each is a named predicate that returns the reason it
// lets the request through, or undefined. They run in the order of the list;
// the first reason wins. The order goes from cheapest and most certain to the
// checks that read the stored object.

import type { AdmissionConfig, AdmissionLookups, AllowReason } from './decision.ts'
import { handlingOf } from './subresources.ts'
import type { AdmissionRequest } from './types.ts'

export const NAMESPACE_CONTROLLER = 'system:serviceaccount:kube-system:namespace-controller'
export const GARBAGE_COLLECTOR = 'system:serviceaccount:kube-system:generic-garbage-collector'

export interface RequestFacts {
  readonly req: AdmissionRequest
  readonly lookups: AdmissionLookups
  readonly config: AdmissionConfig
}

export type Exemption = (facts: RequestFacts) => AllowReason | undefined

function username(req: AdmissionRequest): string | undefined {
  const name = req.userInfo.username
  return typeof name === 'string' && name !== '' ? name : undefined
}

/** The operator's own writes (applies and reverts) must never be blocked by its own webhook. */
export const byOperatorIdentity: Exemption = ({ req, config }) => {
  const name = username(req)
  return name !== undefined && config.operatorUsernames.includes(name) ? 'OperatorIdentity' : undefined
}

/**
 * CREATE changes nothing stored (and is the adoption path); CONNECT is
 * exec/attach/proxy. Except the CREATEs that change another object: an
 * Eviction deletes a Pod, a Binding writes into one.
 */
export const byUnguardedOperation: Exemption = ({ req }) => {
  if (req.operation === 'CONNECT') return 'OperationNotGuarded'
  if (req.operation !== 'CREATE') return undefined
  const handling = handlingOf(req)
  return handling === 'eviction' || handling === 'binding' ? undefined : 'OperationNotGuarded'
}

/** Subresources that change nothing a Template renders (subresources.ts says which, and why). */
export const byUnguardedSubresource: Exemption = ({ req }) =>
  req.subResource !== undefined && handlingOf(req) === 'exempt' ? 'SubresourceNotGuarded' : undefined

/** Deleting a namespace must be able to empty it. */
export const byNamespaceController: Exemption = ({ req }) => (username(req) === NAMESPACE_CONTROLLER ? 'NamespaceController' : undefined)

/**
 * Finalizer and ownerReference updates by the GC must go through, or objects
 * hang in Terminating. Its DELETEs are judged: template-sync never deletes
 * through ownerReferences, so a strict object the GC would delete carries an
 * ownerReference someone else set, and its owner's deletion must not delete
 * it (docs/security.md).
 */
export const byGarbageCollector: Exemption = ({ req }) =>
  username(req) === GARBAGE_COLLECTOR && req.operation !== 'DELETE' ? 'GarbageCollector' : undefined

/** Whatever the caller, a terminating namespace is on its way out; denying would wedge it. */
export const byTerminatingNamespace: Exemption = ({ req, lookups }) =>
  req.namespace !== undefined && req.namespace !== '' && lookups.isNamespaceTerminating(req.namespace) ? 'NamespaceTerminating' : undefined

// An object that is being deleted is not exempt here: it can sit in
// Terminating for as long as another controller's finalizer holds it, and
// strict still holds for it then. decide.ts lets its finalizers change.

export const REQUEST_EXEMPTIONS: readonly Exemption[] = Object.freeze([
  byOperatorIdentity,
  byUnguardedOperation,
  byUnguardedSubresource,
  byNamespaceController,
  byGarbageCollector,
  byTerminatingNamespace,
])

export function firstExemption(facts: RequestFacts): AllowReason | undefined {
  for (const check of REQUEST_EXEMPTIONS) {
    const reason = check(facts)
    if (reason !== undefined) return reason
  }
  return undefined
}
