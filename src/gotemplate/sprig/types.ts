// Go types that the value model does not carry. Arrays and maps built by Sprig
// functions may have a concrete Go type other than []interface{} or
// map[string]interface{} (splitList returns []string, until []int, split
// map[string]string), and some return a nil slice, which prints as [] but
// encodes to JSON as null. typeOf, kindOf, deepEqual and toJson need to know,
// so the objects are tagged here without changing their shape.

import { GoInt, GoObject, GoTime, isMap, uint8 } from '../value.ts'
import type { GoFuncSpec, GoMap, GoValue } from '../value.ts'

const typeTags = new WeakMap<object, string>()
const nilSlices = new WeakSet<object>()
const methodSets = new WeakMap<object, (name: string) => GoFuncSpec | undefined>()
// Named types defined on map[string]interface{} (Helm's chartutil.Values):
// assignable to a map[string]interface{} parameter, elements read as interface{}.
const valuesMaps = new WeakSet<object>()

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

/**
 * A named slice or map type with methods (Helm's VersionSet with Has, its
 * files map with Get and Glob): tags the value with the type name and gives
 * it a method set. The value keeps its shape, so range, len and index work
 * as on any slice or map.
 */
export function withMethods<T extends object>(v: T, goType: string, methods: (name: string) => GoFuncSpec | undefined): T {
  methodSets.set(v, methods)
  return tagType(v, goType)
}

/** Tags a map with a named type whose underlying type is map[string]interface{} (`type Values map[string]interface{}`). */
export function namedValuesMap<T extends object>(v: T, goType: string): T {
  valuesMaps.add(v)
  return tagType(v, goType)
}

const unnamedViews = new WeakMap<object, GoMap>()

/**
 * A named values map converted to map[string]interface{}, as Go converts an
 * argument to a function's parameter type: the same entries (a view, so
 * writes reach the original) without the name, so what the function returns
 * of it (merge, set) has the plain type, as in Go.
 */
export function asUnnamedMap(v: GoMap): GoMap {
  if (!valuesMaps.has(v)) return v
  let view = unnamedViews.get(v)
  if (view === undefined) {
    view = new Proxy(v, {})
    unnamedViews.set(v, view)
  }
  return view
}

/** Go's underlying type name: map[string]interface {} for a named values map, else the type itself. */
export function underlyingTypeOf(v: GoValue): string {
  if (typeof v === 'object' && v !== null && valuesMaps.has(v)) return 'map[string]interface {}'
  return goTypeOf(v)
}

/** The method of a named slice or map value, or undefined. */
export function namedTypeMethod(v: object, name: string): GoFuncSpec | undefined {
  return methodSets.get(v)?.(name)
}

/** Gives `to` the Go type of `from` (its name, methods and underlying map type): what a copy of a named value keeps. */
export function sameGoType<T extends object>(from: object, to: T): T {
  const tag = typeTags.get(from)
  if (tag !== undefined) typeTags.set(to, tag)
  if (valuesMaps.has(from)) valuesMaps.add(to)
  const methods = methodSets.get(from)
  if (methods !== undefined) methodSets.set(to, methods)
  return to
}

export function taggedType(v: object): string | undefined {
  return typeTags.get(v)
}

/** Go's %T. */
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
  if (v instanceof GoInt) return v.type
  if (v instanceof GoTime) return 'time.Time'
  if (v instanceof GoObject) return v.goType
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
  if (v instanceof GoInt) return v.kind
  if (v instanceof GoTime) return 'struct'
  if (v instanceof GoObject) return v.goKind
  const tag = typeTags.get(v)
  if (tag?.startsWith('*')) return 'ptr'
  if (Array.isArray(v)) return 'slice'
  if (valuesMaps.has(v) || methodSets.has(v)) return 'map'
  // A tag that is neither a slice nor a map type names a struct (sprig.certificate).
  return tag === undefined || tag.startsWith('map[') ? 'map' : 'struct'
}

/** A plain Go map (map[string]interface{} or another map type), not a struct or pointer stand-in. */
export function isGoMapValue(v: GoValue): v is GoMap {
  if (!isMap(v)) return false
  const tag = typeTags.get(v)
  return tag === undefined || tag.startsWith('map[') || valuesMaps.has(v) || methodSets.has(v)
}

export function isGoMap(v: GoValue): v is GoMap {
  return isMap(v)
}

export function isList(v: GoValue): v is readonly GoValue[] {
  return Array.isArray(v)
}

/** A Go []byte: a list of uint8 values typed []uint8. */
export function bytesValue(b: Uint8Array): GoValue[] {
  const out: GoValue[] = new Array<GoValue>(b.length)
  for (let i = 0; i < b.length; i++) out[i] = uint8(b[i] ?? 0)
  return tagType(out, '[]uint8')
}

/** The bytes of a []uint8 value, or undefined for any other value. */
export function bytesOf(v: GoValue): Uint8Array | undefined {
  if (!Array.isArray(v) || typeTags.get(v) !== '[]uint8') return undefined
  const list = v as readonly GoValue[]
  const out = new Uint8Array(list.length)
  for (let i = 0; i < list.length; i++) {
    const e = list[i]
    out[i] = e instanceof GoInt ? Number(e.value) : 0
  }
  return out
}
