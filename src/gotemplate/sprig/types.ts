// Go types that the value model does not carry. Arrays and maps built by Sprig
// functions may have a concrete Go type other than []interface{} or
// map[string]interface{} (splitList returns []string, until []int, split
// map[string]string), and some return a nil slice, which prints as [] but
// encodes to JSON as null. typeOf, kindOf, deepEqual and toJson need to know,
// so the objects are tagged here without changing their shape.

import { GoTime, isMap } from '../value.ts'
import type { GoMap, GoValue } from '../value.ts'

const typeTags = new WeakMap<object, string>()
const nilSlices = new WeakSet<object>()
const stringers = new WeakMap<object, string>()

export function tagType<T extends object>(v: T, goType: string): T {
  typeTags.set(v, goType)
  return v
}

/** A nil slice of the given Go slice type. */
export function nilSlice(goType = '[]interface {}'): GoValue[] {
  const v: GoValue[] = []
  nilSlices.add(v)
  return tagType(v, goType)
}

export function isNilSlice(v: GoValue): boolean {
  return Array.isArray(v) && nilSlices.has(v)
}

export function taggedType(v: object): string | undefined {
  return typeTags.get(v)
}

/**
 * Go's %T. A bigint is reported as int: the value model does not say whether
 * a Go integer was an int or an int64.
 */
export function goTypeOf(v: GoValue): string {
  if (v === null || v === undefined) return '<nil>'
  switch (typeof v) {
    case 'bigint':
      return 'int'
    case 'number':
      return 'float64'
    case 'string':
      return 'string'
    case 'boolean':
      return 'bool'
  }
  if (v instanceof GoTime) return 'time.Time'
  const tag = typeTags.get(v)
  if (tag !== undefined) return tag
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}'
}

/** reflect.Kind.String() of the dynamic value. */
export function goKindOf(v: GoValue): string {
  if (v === null || v === undefined) return 'invalid'
  switch (typeof v) {
    case 'bigint':
      return 'int'
    case 'number':
      return 'float64'
    case 'string':
      return 'string'
    case 'boolean':
      return 'bool'
  }
  if (v instanceof GoTime) return 'struct'
  const tag = typeTags.get(v)
  if (tag?.startsWith('*')) return 'ptr'
  if (Array.isArray(v)) return 'slice'
  // A tag that is neither a slice nor a map type names a struct (sprig.certificate).
  return tag === undefined || tag.startsWith('map[') ? 'map' : 'struct'
}

/** A plain Go map (map[string]interface{} or another map type), not a struct or pointer stand-in. */
export function isGoMapValue(v: GoValue): v is GoMap {
  if (!isMap(v)) return false
  const tag = typeTags.get(v)
  return tag === undefined || tag.startsWith('map[')
}

export function isGoMap(v: GoValue): v is GoMap {
  return isMap(v)
}

export function isList(v: GoValue): v is readonly GoValue[] {
  return Array.isArray(v)
}

/**
 * Marks a map that stands for a Go value with a String method (a
 * *semver.Version); fmt and strval print the string instead of the map.
 */
export function setStringer<T extends object>(v: T, text: string): T {
  stringers.set(v, text)
  return v
}

export function stringerOf(v: object): string | undefined {
  return stringers.get(v)
}
