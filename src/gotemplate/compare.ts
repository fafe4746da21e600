// Truth and the comparison built-ins (eq ne lt le gt ge) with Go's type
// rules: only basic kinds order, integers compare across int, int64 and the
// unsigned types, int and float64 never compare with each other, lists and
// maps are not comparable at all, and pointers are equal only to themselves.
// JSON numbers are float64, so `eq .replicas 3` is an error in Go and is one
// here.

import { GoInt, GoObject, GoTime, GoFuncError, isUnsignedKind, sameComparable } from './value.ts'
import type { GoValue } from './value.ts'
import { formatS, formatValue, typeName } from './fmt.ts'
import { goKindOf, isNilSlice } from './sprig/types.ts'
import { compareGoStrings } from './sprig/utf8.ts'

/** Go's truth: zero values and empty collections are false; structs (time) are true. */
export function isTrue(v: GoValue): boolean {
  switch (typeof v) {
    case 'boolean':
      return v
    case 'string':
      return v.length > 0
    case 'bigint':
      return v !== 0n
    case 'number':
      return v !== 0
    case 'undefined':
      return false
  }
  if (v === null) return false
  if (Array.isArray(v)) return v.length > 0
  if (v instanceof GoInt) return v.value !== 0n
  // Structs are always true, non-nil pointers too.
  if (v instanceof GoTime || v instanceof GoObject) return true
  for (const _ in v) return true
  return false
}

type BasicKind = 'bool' | 'int' | 'uint' | 'float' | 'string' | 'invalid'

function basicKind(v: GoValue): BasicKind {
  switch (typeof v) {
    case 'boolean':
      return 'bool'
    case 'bigint':
      return 'int'
    case 'number':
      return 'float'
    case 'string':
      return 'string'
  }
  if (v instanceof GoInt) return isUnsignedKind(v.kind) ? 'uint' : 'int'
  return 'invalid'
}

const intOf = (v: GoValue): bigint => (v instanceof GoInt ? v.value : (v as bigint))

/** Whether two integers of int or uint kinds are equal: Go compares them across signedness. */
const sameInteger = (a: GoValue, b: GoValue): boolean => intOf(a) === intOf(b)

// A nil interface compares as no value at all.
const unwrap = (v: GoValue): GoValue => (v === null ? undefined : v)

const errBadComparisonType = 'invalid type for comparison'
const errNoComparison = 'missing argument for comparison'

function incompatible(a: GoValue, b: GoValue): GoFuncError {
  return new GoFuncError(`incompatible types for comparison: ${typeName(a)} and ${typeName(b)}`)
}

/**
 * Non-basic values: nil (or a nil slice) equals only nil, lists and maps
 * cannot be compared, pointers are equal when they are the same pointer,
 * structs (time.Time, semver.Version) field by field.
 */
function eqOther(a: GoValue, b: GoValue): boolean {
  const ka = goKindOf(a)
  const kb = goKindOf(b)
  // Go compares further only values of the same reflect kind (a []string with a []interface {} is "slice").
  if (ka !== kb && ka !== 'invalid' && kb !== 'invalid') {
    throw new GoFuncError(`non-comparable types ${formatS(a)}: ${typeName(a)}, ${typeName(b)}: ${formatValue(b)}`)
  }
  const aNil = a === undefined || isNilSlice(a)
  const bNil = b === undefined || isNilSlice(b)
  if (aNil || bNil) return aNil === bNil
  if (kb === 'slice' || kb === 'map') throw new GoFuncError(`non-comparable type ${formatS(b)}: ${typeName(b)}`)
  if (typeName(a) !== typeName(b)) return false
  return sameComparable(a, b) || a === b
}

/** eq arg1 arg2...: true if arg1 equals any of the others. */
export function eq(arg1: GoValue, ...rest: GoValue[]): boolean {
  const a = unwrap(arg1)
  if (rest.length === 0) throw new GoFuncError(errNoComparison)
  const k1 = basicKind(a)
  for (const r of rest) {
    const b = unwrap(r)
    const k2 = basicKind(b)
    let truth: boolean
    if (k1 !== k2) {
      if ((k1 === 'int' && k2 === 'uint') || (k1 === 'uint' && k2 === 'int')) truth = sameInteger(a, b)
      else if (a !== undefined && b !== undefined) throw incompatible(a, b)
      else truth = false
    } else if (k1 === 'invalid') truth = eqOther(a, b)
    else if (k1 === 'int' || k1 === 'uint') truth = sameInteger(a, b)
    else truth = a === b
    if (truth) return true
  }
  return false
}

export function ne(a: GoValue, b: GoValue): boolean {
  return !eq(a, b)
}

export function lt(arg1: GoValue, arg2: GoValue): boolean {
  const a = unwrap(arg1)
  const k1 = basicKind(a)
  if (k1 === 'invalid') throw new GoFuncError(errBadComparisonType)
  const b = unwrap(arg2)
  const k2 = basicKind(b)
  if (k2 === 'invalid') throw new GoFuncError(errBadComparisonType)
  if (k1 !== k2) {
    // A signed and an unsigned integer compare by value.
    if ((k1 === 'int' && k2 === 'uint') || (k1 === 'uint' && k2 === 'int')) return intOf(a) < intOf(b)
    throw incompatible(a, b)
  }
  switch (k1) {
    case 'bool':
      throw new GoFuncError(errBadComparisonType)
    case 'string':
      return compareGoStrings(a as string, b as string) < 0
    case 'int':
    case 'uint':
      return intOf(a) < intOf(b)
    default:
      return (a as number) < (b as number)
  }
}

export function le(a: GoValue, b: GoValue): boolean {
  return lt(a, b) || eq(a, b)
}

export function gt(a: GoValue, b: GoValue): boolean {
  return !le(a, b)
}

export function ge(a: GoValue, b: GoValue): boolean {
  return !lt(a, b)
}
