// Go's reflection-based predicates as Sprig uses them: empty (the zero-value
// test behind default, coalesce, compact...), reflect.DeepEqual, %T and Kind.

import { GoInt, GoObject, GoTime, isMap, sameComparable } from '../value.ts'
import type { FuncMap, GoValue } from '../value.ts'
import { fn, str } from './spec.ts'
import { goKindOf, goTypeOf, isGoMapValue, isNilSlice } from './types.ts'

export function empty(v: GoValue): boolean {
  if (v === null || v === undefined) return true
  switch (typeof v) {
    case 'string':
      return v.length === 0
    case 'bigint':
      return v === 0n
    case 'number':
      return v === 0
    case 'boolean':
      return !v
  }
  if (v instanceof GoInt) return v.value === 0n
  // A struct (time.Time) or a non-nil pointer (*semver.Version) is never empty.
  if (v instanceof GoTime || v instanceof GoObject) return false
  if (Array.isArray(v)) return v.length === 0
  // A *semver.Version is a non-nil pointer, a certificate a struct: never empty.
  if (!isGoMapValue(v)) return false
  return Object.keys(v).length === 0
}

export function deepEqual(a: GoValue, b: GoValue): boolean {
  if (a === undefined) a = null
  if (b === undefined) b = null
  if (a === null || b === null) return a === b
  if (typeof a !== typeof b) return false
  if (typeof a !== 'object') return a === b
  if (typeof b !== 'object' || b === null) return false
  // Values of different Go types are never deeply equal: int 1 is not int64 1.
  if (goTypeOf(a) !== goTypeOf(b)) return false
  if (a instanceof GoInt || a instanceof GoTime) return sameComparable(a, b)
  if (a instanceof GoObject) {
    if (!(b instanceof GoObject)) return false
    // Pointers are deeply equal when what they point to is.
    const fa = a.structFields()
    const fb = b.structFields()
    return a === b || (fa.length === fb.length && fa.every(([, x], i) => deepEqual(x, fb[i]?.[1])))
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b)) return false
    const x = a as readonly GoValue[]
    const y = b as readonly GoValue[]
    if (isNilSlice(x) !== isNilSlice(y) || x.length !== y.length) return false
    return x.every((e, i) => deepEqual(e, y[i]))
  }
  if (!isMap(a) || !isMap(b)) return false
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  return ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]))
}

export const reflectFuncs: FuncMap = {
  typeOf: fn(['any'], (v) => goTypeOf(v)),
  typeIs: fn(['string', 'any'], (t, v) => str(t) === goTypeOf(v)),
  typeIsLike: fn(['string', 'any'], (t, v) => {
    const name = goTypeOf(v)
    return str(t) === name || '*' + str(t) === name
  }),
  kindOf: fn(['any'], (v) => goKindOf(v)),
  kindIs: fn(['string', 'any'], (t, v) => str(t) === goKindOf(v)),
  deepEqual: fn(['any', 'any'], (a, b) => deepEqual(a, b)),
}
