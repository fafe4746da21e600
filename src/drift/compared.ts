// The part of an object that compare reads, for memories kept between passes.
// compare skips status and the server-managed metadata under every rule set
// (protect rules only reopen ownership labels and annotations), so a copy
// without them compares exactly as the whole object does. managedFields with
// their fieldsV1 trees are the largest part of a small object as the API
// server returns it.

import { setOwn } from './normalize.ts'
import { SERVER_MANAGED_METADATA, SERVER_MANAGED_TOP_LEVEL } from './server-managed.ts'

const dropTopLevel: ReadonlySet<string> = new Set(SERVER_MANAGED_TOP_LEVEL)

/**
 * A shallow copy of obj without status and the server-managed metadata,
 * except the metadata keys in `keep`. Everything else is shared with obj, so
 * obj must not be modified afterwards (cached and remembered objects never are).
 */
export function comparedPart<T extends object>(obj: T, keep: readonly string[] = []): T {
  const drop = new Set(SERVER_MANAGED_METADATA.filter((k) => !keep.includes(k)))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(obj)) {
    if (dropTopLevel.has(k)) continue
    setOwn(out, k, k === 'metadata' && isRecord(v) ? withoutKeys(v, drop) : v)
  }
  return out as T
}

function withoutKeys(o: Record<string, unknown>, drop: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(o)) if (!drop.has(k)) setOwn(out, k, v)
  return out
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
