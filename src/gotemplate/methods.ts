// Method calls and struct fields on the values of the model that have them:
// time.Time and the named integer types of package time (their methods are
// in sprig/timemethods.ts) and GoObject values (semver, values a caller
// defines) and named slice and map types (sprig/types.ts withMethods). Go
// looks for a method before a field or a map key.

import { namedIntMethod, timeMethod } from './sprig/timemethods.ts'
import { namedTypeMethod } from './sprig/types.ts'
import { GoInt, GoObject, GoTime } from './value.ts'
import type { GoFuncSpec, GoValue } from './value.ts'

/** The method `name` of v with v bound as its receiver, or undefined when v has no such method. */
export function methodOf(v: GoValue, name: string): GoFuncSpec | undefined {
  if (v instanceof GoObject) return v.method(name)
  if (v instanceof GoTime) return timeMethod(v, name)
  if (v instanceof GoInt) return v.type === v.kind ? undefined : namedIntMethod(v, name)
  if (typeof v === 'object' && v !== null) return namedTypeMethod(v, name)
  return undefined
}

// time.Time's fields, all unexported.
const timeFields = new Set(['wall', 'ext', 'loc'])

/** An exported field of a struct value; 'unexported' when Go would refuse the name as unexported. */
export function fieldOf(v: GoValue, name: string): { readonly value: GoValue } | 'unexported' | undefined {
  if (v instanceof GoObject) {
    const value = v.field(name)
    if (value !== undefined) return { value }
    return v.structFields().some(([n]) => n === name) ? 'unexported' : undefined
  }
  if (v instanceof GoTime) return timeFields.has(name) ? 'unexported' : undefined
  return undefined
}

/** The text of a value's String method (fmt's Stringer), or undefined. */
export function stringMethod(v: GoValue): string | undefined {
  if (v instanceof GoObject && !v.printsWithString) return undefined
  const m = methodOf(v, 'String')
  if (m === undefined || m.params.length !== 0 || m.unsupported !== undefined) return undefined
  const s = m.fn()
  return typeof s === 'string' ? s : undefined
}
