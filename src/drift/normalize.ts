// A copy of an object without the server-managed fields, for callers that
// need the object itself (printing, apply payloads). compare does not use it:
// it skips the same fields while walking, without copying.

import { SERVER_MANAGED_METADATA, SERVER_MANAGED_TOP_LEVEL } from './server-managed.ts'

const dropMetadata: ReadonlySet<string> = new Set(SERVER_MANAGED_METADATA)
const dropTopLevel: ReadonlySet<string> = new Set(SERVER_MANAGED_TOP_LEVEL)
const dropNothing: ReadonlySet<string> = new Set()

/**
 * Returns a deep copy without the server-managed fields. The input is never
 * modified and may be frozen; the copy shares nothing with it and is not frozen.
 */
export function normalize<T>(obj: T): T {
  if (!isRecord(obj)) return copy(obj) as T
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(obj)) {
    if (dropTopLevel.has(k)) continue
    const v = obj[k]
    setOwn(out, k, k === 'metadata' && isRecord(v) ? copyRecord(v, dropMetadata) : copy(v))
  }
  return out as T
}

function copy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copy)
  return isRecord(value) ? copyRecord(value, dropNothing) : value
}

function copyRecord(value: Record<string, unknown>, drop: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(value)) {
    if (!drop.has(k)) setOwn(out, k, copy(value[k]))
  }
  return out
}

/** Plain assignment of "__proto__" would replace the prototype instead of adding a key. */
export function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true })
  else o[k] = v
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
