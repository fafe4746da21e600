// Named update filters for watch events, as controller-runtime's predicate
// package names them: each says whether an update carries something a
// reconciler acts on, so that handlers read as a list of reasons instead of
// field comparisons.

import { isDeepStrictEqual } from 'node:util'
import type { KubeObject } from '../api/meta.ts'

/** True when the update from `old` to `next` is worth acting on. */
export type UpdatePredicate<T extends KubeObject = KubeObject> = (next: T, old: T) => boolean

export const generationChanged: UpdatePredicate = (next, old) => next.metadata?.generation !== old.metadata?.generation

export const deletionChanged: UpdatePredicate = (next, old) => next.metadata?.deletionTimestamp !== old.metadata?.deletionTimestamp

export const finalizersChanged: UpdatePredicate = (next, old) => !isDeepStrictEqual(next.metadata?.finalizers, old.metadata?.finalizers)

export const labelsChanged: UpdatePredicate = (next, old) => !isDeepStrictEqual(next.metadata?.labels, old.metadata?.labels)

export const annotationsChanged: UpdatePredicate = (next, old) => !isDeepStrictEqual(next.metadata?.annotations, old.metadata?.annotations)

/** Any of the predicates holds. */
export function anyOf<T extends KubeObject>(...predicates: readonly UpdatePredicate<T>[]): UpdatePredicate<T> {
  return (next, old) => predicates.some((p) => p(next, old))
}

/**
 * Everything but status and the server's bookkeeping: a status-only update
 * (a controller's own write) carries nothing for it to act on.
 */
export const specOrMetadataChanged: UpdatePredicate = anyOf(
  generationChanged,
  deletionChanged,
  finalizersChanged,
  labelsChanged,
  annotationsChanged,
)
