// Adding and removing a finalizer with a JSON patch, as controller-runtime's
// controllerutil.AddFinalizer and RemoveFinalizer do for a typed client: the
// patch is guarded by a test, so a concurrent change of the list is never
// overwritten (the request fails with 422 and the caller reads again).

import type { JsonPatchOp } from '../api/patch.ts'

export type { JsonPatchOp } from '../api/patch.ts'
export { testResourceVersion } from '../api/patch.ts'

/** Operations that add `finalizer` to a list that lacks it; none when it is there. */
export function addFinalizerOps(finalizers: readonly string[] | undefined, finalizer: string): JsonPatchOp[] {
  if (finalizers?.includes(finalizer)) return []
  return finalizers === undefined || finalizers.length === 0
    ? [{ op: 'add', path: '/metadata/finalizers', value: [finalizer] }]
    : [{ op: 'add', path: '/metadata/finalizers/-', value: finalizer }]
}

/** Operations that remove `finalizer` where it stands now, guarded by a test of that position; none when it is absent. */
export function removeFinalizerOps(finalizers: readonly string[] | undefined, finalizer: string): JsonPatchOp[] {
  const idx = (finalizers ?? []).indexOf(finalizer)
  if (idx < 0) return []
  return [
    { op: 'test', path: `/metadata/finalizers/${idx}`, value: finalizer },
    { op: 'remove', path: `/metadata/finalizers/${idx}` },
  ]
}
