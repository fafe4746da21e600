// JSON patch (RFC 6902) as template-sync writes it: guarded by a test, so it
// applies to exactly the version it was made for.

/** One JSON patch operation. */
export interface JsonPatchOp {
  readonly op: 'add' | 'remove' | 'test' | 'replace'
  readonly path: string
  readonly value?: unknown
}

/** A test of the resourceVersion: the patch applies to exactly the version it was made for. */
export function testResourceVersion(resourceVersion: string | undefined): JsonPatchOp {
  return { op: 'test', path: '/metadata/resourceVersion', value: resourceVersion }
}
