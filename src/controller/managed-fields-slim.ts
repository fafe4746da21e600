// What the reconciler's caches keep of metadata.managedFields. Who wrote and
// when is enough everywhere (DriftConflict names the last other writer); the
// drift caches also keep the field set of our own Apply entry, which proves a
// re-apply a no-op after a restart (../drift/apply-noop.ts). The objects of
// one Template share one field set, so identical sets are interned: tens of
// thousands of rendered objects hold a handful of frozen trees
// (docs/reconciler-memory.md).

import type { KubeObject, ManagedFieldsEntry } from '../api/meta.ts'
import { isOwnApplyEntry } from '../drift/apply-noop.ts'
import { type ComponentTable, writerOfManager } from '../api/writers.ts'
import { deepFreeze } from '../kube/freeze.ts'

type FieldSet = NonNullable<ManagedFieldsEntry['fieldsV1']>

/** Identical field sets (by their JSON) share one frozen object; past `max` distinct sets, each keeps its own. */
export class FieldSetInterner {
  private readonly sets = new Map<string, FieldSet>()
  private readonly max: number

  constructor(max = 4096) {
    this.max = max
  }

  intern(set: FieldSet): FieldSet {
    const key = JSON.stringify(set)
    const known = this.sets.get(key)
    if (known !== undefined) return known
    const frozen = deepFreeze(set)
    if (this.sets.size < this.max) this.sets.set(key, frozen)
    return frozen
  }

  get size(): number {
    return this.sets.size
  }
}

function slimEntry(f: ManagedFieldsEntry): ManagedFieldsEntry {
  return { manager: f.manager, operation: f.operation, time: f.time, ...(f.subresource ? { subresource: f.subresource } : {}) }
}

function withEntries<T extends KubeObject>(obj: KubeObject, slim: (f: ManagedFieldsEntry) => ManagedFieldsEntry): T {
  const meta = obj.metadata
  if (!meta?.managedFields) return obj as T
  return { ...obj, metadata: { ...meta, managedFields: meta.managedFields.map(slim) } } as T
}

/** Who wrote and when, without the field sets. */
export function slimManagedFields<T extends KubeObject>(obj: KubeObject): T {
  return withEntries<T>(obj, slimEntry)
}

/**
 * For a drift cache: slimManagedFields, except that our Apply entry keeps its
 * apiVersion and (interned) field set; and while another writer (neither us
 * nor a component) owns fields of the main resource, every entry of the main
 * resource keeps its set, so that its additions can be told from what we and
 * the components own (../drift/additions.ts). At rest no such writer is
 * there, and the cache holds no more than before.
 */
export function driftCacheTransform(interner: FieldSetInterner, components: ComponentTable): <T extends KubeObject>(obj: KubeObject) => T {
  return <T extends KubeObject>(obj: KubeObject): T => {
    const entries = obj.metadata?.managedFields ?? []
    const foreign = entries.some((f) => mainResource(f) && f.fieldsV1 !== undefined && writerOfManager(f.manager, components) === 'other')
    return withEntries<T>(obj, (f) => {
      const keep = isOwnApplyEntry(f) || (foreign && mainResource(f))
      if (!keep || f.fieldsV1 === undefined) return slimEntry(f)
      return { ...slimEntry(f), ...(f.apiVersion ? { apiVersion: f.apiVersion } : {}), fieldsV1: interner.intern(f.fieldsV1) }
    })
  }
}

const mainResource = (f: ManagedFieldsEntry): boolean => (f.subresource ?? '') === ''
