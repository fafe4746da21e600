// Step 5: the kinds about to be applied are recorded on the instance before
// any apply (with our finalizer, in one patch: record.ts), so that cleanup can
// always find what we create; status.trackedKinds follows with the status write.

import { legacyTrackedKind, trackedKind } from '../../api/templateinstance-kinds.ts'
import type { DesiredObject } from '../../apply/plan.ts'
import type { InstanceRecord } from './record.ts'

/** Every kind the instance has rendered, this render's included, sorted. */
export async function recordKinds(record: InstanceRecord, desired: readonly DesiredObject[]): Promise<string[]> {
  const tracked = [...new Set([...record.knownKinds, ...desired.map((d) => trackedKind(d.obj.apiVersion, d.obj.kind))])].sort()
  record.status.trackedKinds = tracked
  if (record.dropsTrackedKinds()) record.status.trackedGVKs = tracked.map(legacyTrackedKind)
  await record.recordKinds(tracked)
  return tracked
}
