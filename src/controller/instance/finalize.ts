// The cleanup of an instance being deleted: every object that carries its
// UID label (in every kind it ever rendered) is deleted, and once none is
// left, our finalizer goes and the instance with it.

import { describeObject, refOf } from '../../api/identity.ts'
import { FINALIZER_INSTANCE, FINALIZER_RESOURCE } from '../../api/names.ts'
import type { TemplateInstance } from '../../api/templateinstance.ts'
import { recordedKinds } from '../../api/templateinstance-kinds.ts'
import { deleteOwned } from '../../apply/prune.ts'
import type { KubeClient } from '../../kube/client.ts'
import { errorMessage } from '../../kube/errors.ts'
import type { ObjectClient } from '../../kube/objects.ts'
import type { LiveObjects } from '../live.ts'
import { releaseInstance } from './record.ts'
import type { EventSink, ReconcileResult } from './types.ts'

export interface FinalizeDeps {
  readonly client: KubeClient
  readonly objects: ObjectClient
  readonly live: LiveObjects
  readonly events: EventSink
}

/** Returns `done` once the finalizer is gone (or was never there). */
export async function finalizeInstance(deps: FinalizeDeps, inst: TemplateInstance): Promise<ReconcileResult & { done: boolean }> {
  if (!(inst.metadata?.finalizers ?? []).includes(FINALIZER_INSTANCE)) return { done: true }
  const uid = inst.metadata?.uid ?? ''
  const kinds = recordedKinds(inst)
  const { objects, errors } = await deps.live.owned(uid, kinds, false)
  const failed: string[] = [...errors]
  for (const obj of objects) {
    try {
      await deleteOwned(deps.objects, obj)
      deps.events.normal(inst, 'Deleted', `deleted ${describeObject(refOf(obj))}`)
    } catch (e) {
      failed.push(`${describeObject(refOf(obj))}: ${errorMessage(e)}`)
    }
  }
  if (failed.length > 0) {
    deps.events.warning(inst, 'DeleteFailed', `could not delete rendered resources: ${failed.slice(0, 3).join('; ')}`)
    throw new Error(`TemplateInstance ${inst.metadata?.namespace}/${inst.metadata?.name}: cleanup incomplete: ${failed.join('; ')}`)
  }
  // Objects removed above vanish once their other finalizers (if any) are gone;
  // confirm nothing of ours is left before letting the instance go.
  const again = await deps.live.owned(uid, kinds, false)
  const remaining = again.objects.filter((o) => (o.metadata.finalizers ?? []).includes(FINALIZER_RESOURCE) || !o.metadata.deletionTimestamp)
  if (remaining.length > 0 || again.errors.length > 0) return { done: false, requeueAfterMs: 1000 }
  await releaseInstance(deps.client, inst)
  return { done: true }
}
