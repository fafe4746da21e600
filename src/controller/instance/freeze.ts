// Step 2: an instance under sync mode off after its first clean pass is
// frozen. Nothing is applied: the sync-mode label is kept current, our
// finalizer is dropped (so a manual delete completes), nothing is re-created,
// outputs stay live, and Synced=False/Frozen says what is missing.

import { InstanceConditionType as C, Reason } from '../../api/conditions.ts'
import { describeObject, objectKey, refOf } from '../../api/identity.ts'
import { FIELD_MANAGER, FINALIZER_RESOURCE, LABEL_SYNC_MODE } from '../../api/names.ts'
import { formatInstanceRef, readTemplateRef } from '../../api/ownership.ts'
import type { Template } from '../../api/template.ts'
import type { ResourceReference, TemplateInstance } from '../../api/templateinstance.ts'
import { CONTENT_MERGE, type KubeClient } from '../../kube/client.ts'
import type { ObjectClient } from '../../kube/objects.ts'
import type { LiveObjects } from '../live.ts'
import { refreshOutputs } from './outputs.ts'
import type { InstanceRecord } from './record.ts'

export interface FreezeDeps {
  readonly client: KubeClient
  readonly objects: ObjectClient
  readonly live: LiveObjects
}

export async function syncFrozen(deps: FreezeDeps, inst: TemplateInstance, template: Template, record: InstanceRecord): Promise<void> {
  const rendered = record.prev.renderedResources ?? []
  const { missing, kept } = await maintainFrozen(deps, inst, record.knownKinds, rendered)
  await refreshOutputs({ template, inst, frozen: true, values: {}, rendered }, deps.live, record)
  record.set({
    type: C.Synced,
    status: 'False',
    reason: Reason.Frozen,
    message:
      `frozen since ${record.prev.firstAppliedAt}: sync mode is off` +
      (missing.length > 0 ? `; missing rendered objects (not recreated under off): ${missing.slice(0, 5).join(', ')}` : '') +
      (kept.length > 0
        ? `; rendered by another Template, these keep its protection until this instance applies them again: ${kept.slice(0, 5).join(', ')}`
        : ''),
  })
}

/**
 * Keeps the sync-mode label current, drops our finalizer (so a manual delete
 * completes), never recreates, and reports which rendered objects are gone.
 * An object another Template rendered (the instance's templateRef changed
 * since) is left as it is: its protection is that Template's until this
 * instance applies it again, and relabelling it here would let the
 * instance's author switch strict off (docs/security.md).
 */
async function maintainFrozen(
  deps: FreezeDeps,
  inst: TemplateInstance,
  kinds: readonly string[],
  rendered: readonly ResourceReference[],
): Promise<{ missing: string[]; kept: string[] }> {
  const { objects } = await deps.live.owned(inst.metadata?.uid ?? '', kinds, false)
  const byKey = new Map(objects.map((o) => [objectKey(refOf(o)), o]))
  const current = formatInstanceRef(inst.spec.templateRef)
  const missing: string[] = []
  const kept: string[] = []
  for (const r of rendered) {
    const o = byKey.get(objectKey(r))
    if (!o) {
      missing.push(describeObject(r))
      continue
    }
    const renderedBy = readTemplateRef(o)
    if (renderedBy !== undefined && formatInstanceRef(renderedBy) !== current) {
      kept.push(`${describeObject(r)} (Template ${formatInstanceRef(renderedBy)})`)
      continue
    }
    // Objects frozen after a revert/strict period still carry our finalizer;
    // drop it so that a manual delete is never stuck in Terminating.
    if ((o.metadata.finalizers ?? []).includes(FINALIZER_RESOURCE)) await deps.objects.removeFinalizer(o, FINALIZER_RESOURCE)
    if (o.metadata.deletionTimestamp) {
      missing.push(describeObject(r))
      continue
    }
    if (o.metadata.labels?.[LABEL_SYNC_MODE] !== 'off') {
      const path = await deps.objects.path(refOf(o))
      await deps.client.request('PATCH', path, {
        body: { metadata: { labels: { [LABEL_SYNC_MODE]: 'off' } } },
        contentType: CONTENT_MERGE,
        query: { fieldManager: `${FIELD_MANAGER}-label` },
      })
    }
  }
  return { missing, kept }
}
