// Deleting what is ours: objects the render no longer names (prune), every
// object at the instance's own deletion, and letting go of an object someone
// else deletes. Our resource finalizer goes first, then a delete guarded by
// the object's UID, so a same-named successor created by someone else is never
// deleted.

import { refOf } from '../api/identity.ts'
import type { IdentifiedObject } from '../api/meta.ts'
import { FINALIZER_RESOURCE } from '../api/names.ts'
import { type ChangeSetEntry, objectError } from './changeset.ts'
import type { ObjectWriter } from './diff.ts'
import type { Prune, Release } from './plan.ts'

/** Removes our finalizer and deletes the object (unless already being deleted), guarded by its UID. */
export async function deleteOwned(writer: Pick<ObjectWriter, 'removeFinalizer' | 'delete'>, obj: IdentifiedObject): Promise<void> {
  if ((obj.metadata.finalizers ?? []).includes(FINALIZER_RESOURCE)) await writer.removeFinalizer(obj, FINALIZER_RESOURCE)
  if (!obj.metadata.deletionTimestamp) await writer.delete(refOf(obj), obj.metadata.uid ? { uid: obj.metadata.uid } : {})
}

export async function prune(
  writer: Pick<ObjectWriter, 'removeFinalizer' | 'delete'>,
  actions: readonly Prune[],
): Promise<ChangeSetEntry[]> {
  const out: ChangeSetEntry[] = []
  for (const p of actions) {
    try {
      await deleteOwned(writer, p.live)
      out.push({ action: 'pruned', ref: p.ref })
    } catch (e) {
      out.push({ action: 'failed', ref: p.ref, error: objectError(p.ref, 'delete', e) })
    }
  }
  return out
}

/** Lets objects someone deleted go: our finalizer is released; their DELETED event brings the re-create. */
export async function release(writer: Pick<ObjectWriter, 'removeFinalizer'>, actions: readonly Release[]): Promise<ChangeSetEntry[]> {
  const out: ChangeSetEntry[] = []
  for (const r of actions) {
    try {
      await writer.removeFinalizer(r.live, FINALIZER_RESOURCE)
      out.push({ action: 'released', ref: r.desired.ref })
    } catch (e) {
      out.push({ action: 'failed', ref: r.desired.ref, error: objectError(r.desired.ref, 'release', e) })
    }
  }
  return out
}
