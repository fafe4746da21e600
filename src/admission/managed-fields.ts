// managedFields of the object a request changes, read only when a decision
// needs it. The webhook never parses them by default (docs/webhook-limits.md):
// its body reader cuts the arrays out and keeps each one's text beside the
// metadata it came from, under MANAGED_FIELDS_TEXT. The one decision that
// reads them, a write by one of the cluster's components, parses that text
// then (docs/writers.md).

import type { KubeObject, ManagedFieldsEntry } from '../api/meta.ts'

/** Where the body reader keeps the text of a managedFields array it cut out (a non-enumerable property of metadata). */
export const MANAGED_FIELDS_TEXT: unique symbol = Symbol('managedFieldsText')

/** The managedFields of an object of a request: as parsed, or from the text the body reader kept; undefined when neither. */
export function storedManagedFields(obj: KubeObject | null | undefined): readonly ManagedFieldsEntry[] | undefined {
  const meta = obj?.metadata as (Record<PropertyKey, unknown> & { managedFields?: unknown }) | undefined
  if (meta === undefined) return undefined
  if (Array.isArray(meta.managedFields)) return meta.managedFields as ManagedFieldsEntry[]
  const text = meta[MANAGED_FIELDS_TEXT]
  if (typeof text !== 'string') return undefined
  try {
    const parsed: unknown = JSON.parse(text)
    return Array.isArray(parsed) ? (parsed as ManagedFieldsEntry[]) : undefined
  } catch {
    return undefined
  }
}
