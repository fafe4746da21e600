// Values as plain JS data while they are coalesced: maps are plain objects
// (Helm's map[string]interface{}), lists arrays, scalars JS values or the
// Go-typed values of src/gotemplate (an int64 from --set stays a GoInt).
// Keys are set with defineProperty so "__proto__" stays ordinary data.

import type { JsonMap } from '../chart/types.ts'

export type { JsonMap }

/** Helm's istable: a map[string]interface{}, not a list or a Go-typed value. */
export function isTable(v: unknown): v is JsonMap {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || Buffer.isBuffer(v)) return false
  const proto = Object.getPrototypeOf(v) as unknown
  return proto === Object.prototype || proto === null
}

export function setKey(m: JsonMap, k: string, v: unknown): void {
  Object.defineProperty(m, k, { value: v, enumerable: true, writable: true, configurable: true })
}

export function hasKey(m: JsonMap, k: string): boolean {
  return Object.hasOwn(m, k)
}

/** copystructure.Copy of values: maps and lists are copied, everything else is immutable and shared. */
export function deepCopy<T>(v: T): T {
  if (Array.isArray(v)) return v.map((e: unknown) => deepCopy(e)) as T
  if (isTable(v)) {
    const out: JsonMap = {}
    for (const [k, e] of Object.entries(v)) setKey(out, k, deepCopy(e))
    return out as T
  }
  return v
}

/** A shallow copy of a map (Go's copyMap). */
export function copyMap(m: JsonMap): JsonMap {
  const out: JsonMap = {}
  for (const [k, e] of Object.entries(m)) setKey(out, k, e)
  return out
}

/** Values.Table: the map at a dotted path, or undefined (ErrNoTable). */
export function table(m: JsonMap, path: string): JsonMap | undefined {
  let cur: JsonMap = m
  for (const part of path.split('.')) {
    if (!hasKey(cur, part)) return undefined
    const next = cur[part]
    if (!isTable(next)) return undefined
    cur = next
  }
  return cur
}

/** Values.PathValue: a non-table value at a dotted path; undefined when there is none. */
export function pathValue(m: JsonMap, path: string): { value: unknown } | undefined {
  const parts = path.split('.')
  const key = parts.pop() as string
  const t = parts.length === 0 ? m : table(m, parts.join('.'))
  if (t === undefined || !hasKey(t, key) || isTable(t[key])) return undefined
  return { value: t[key] }
}
