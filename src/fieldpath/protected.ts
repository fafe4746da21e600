// Ownership keys that no ignoreFields entry can cover. If `metadata.labels` or
// `metadata` is ignored, a user could otherwise strip the ownership labels and
// walk the object out of enforcement. ownerReferences and finalizers are
// guarded the same way: an ownerReference to an object of her own lets its
// author have the garbage collector delete the object, and a finalizer keeps
// it from ever going (docs/security.md).

import { PROTECTED_ANNOTATIONS, PROTECTED_LABELS } from '../api/names.ts'
import type { PathStep } from './types.ts'

const FINALIZERS: readonly string[] = Object.freeze(['metadata', 'finalizers'])

export const PROTECTED_PATHS: readonly (readonly string[])[] = Object.freeze([
  ...PROTECTED_LABELS.map((k) => Object.freeze(['metadata', 'labels', k])),
  ...PROTECTED_ANNOTATIONS.map((k) => Object.freeze(['metadata', 'annotations', k])),
  Object.freeze(['metadata', 'ownerReferences']),
  FINALIZERS,
])

/**
 * While an object is being deleted, the finalizers of other controllers must
 * be able to go, or it would stay in Terminating: they are not guarded then.
 */
export const PROTECTED_PATHS_TERMINATING: readonly (readonly string[])[] = Object.freeze(PROTECTED_PATHS.filter((p) => p !== FINALIZERS))

/** True when the path is a protected key or lies inside one. */
export function isProtectedPath(steps: readonly PathStep[]): boolean {
  return PROTECTED_PATHS.some((p) => p.length <= steps.length && p.every((s, i) => steps[i] === s))
}
