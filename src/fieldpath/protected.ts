// Ownership keys that no ignoreFields entry can cover. If `metadata.labels` or
// `metadata` is ignored, a user could otherwise strip the ownership labels and
// walk the object out of enforcement.

import { PROTECTED_ANNOTATIONS, PROTECTED_LABELS } from '../api/names.ts'
import type { PathStep } from './types.ts'

export const PROTECTED_PATHS: readonly (readonly string[])[] = Object.freeze([
  ...PROTECTED_LABELS.map((k) => Object.freeze(['metadata', 'labels', k])),
  ...PROTECTED_ANNOTATIONS.map((k) => Object.freeze(['metadata', 'annotations', k])),
])

/** True when the path is a protected key or lies inside one. */
export function isProtectedPath(steps: readonly PathStep[]): boolean {
  return PROTECTED_PATHS.some((p) => p.length <= steps.length && p.every((s, i) => steps[i] === s))
}
