// The managedFields entry the API server records for a server-side apply of an
// object by template-sync: maps as `f:` with `.`, lists atomic except
// metadata.finalizers, a set of scalars (`v:` items). Enough for ConfigMaps and
// other objects without lists of maps.

import type { ManagedFieldsEntry } from '../../../src/api/meta.ts'
import { FIELD_MANAGER } from '../../../src/api/names.ts'

export function fieldSet(obj: unknown, path: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(obj as Record<string, unknown>)) {
    if (path.length === 0 && (k === 'apiVersion' || k === 'kind')) continue
    if (path.length === 1 && (k === 'name' || k === 'namespace')) continue
    if (Array.isArray(v)) {
      const items: Record<string, unknown> = { '.': {} }
      for (const item of v) items[`v:${JSON.stringify(item)}`] = {}
      out[`f:${k}`] = k === 'finalizers' ? items : {}
    } else if (typeof v === 'object' && v !== null) {
      out[`f:${k}`] = { '.': {}, ...fieldSet(v, [...path, k]) }
    } else {
      out[`f:${k}`] = {}
    }
  }
  return out
}

/** Our Apply entry for an apply of `applied`. */
export function ourApplyEntry(applied: unknown, apiVersion = 'v1'): ManagedFieldsEntry {
  return {
    manager: FIELD_MANAGER,
    operation: 'Apply',
    apiVersion,
    time: '2026-01-01T00:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: fieldSet(applied),
  }
}
