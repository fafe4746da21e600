// Adding and removing a finalizer with a JSON patch, as controller-runtime's
// controllerutil.AddFinalizer and RemoveFinalizer do for a typed client: the
// patch is guarded by a test, so a concurrent change of the list is never
// overwritten (the request fails with 422 and the caller reads again).

/** One JSON patch operation (RFC 6902). */
export interface JsonPatchOp {
  readonly op: 'add' | 'remove' | 'test' | 'replace'
  readonly path: string
  readonly value?: unknown
}

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

/** A test of the resourceVersion: the patch applies to exactly the version it was made for. */
export function testResourceVersion(resourceVersion: string | undefined): JsonPatchOp {
  return { op: 'test', path: '/metadata/resourceVersion', value: resourceVersion }
}
