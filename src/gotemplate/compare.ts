// Truth and the comparison built-ins (eq ne lt le gt ge) with Go's type
// rules: only basic kinds compare, int and float64 never compare with each
// other, and lists or maps are not comparable at all. JSON numbers are
// float64, so `eq .replicas 3` is an error in Go and is one here.

import { GoTime, GoFuncError, isMap } from './value.ts'
import type { GoValue } from './value.ts'
import { formatS, formatValue, typeName } from './fmt.ts'
import { goKindOf } from './sprig/types.ts'
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
  if (v instanceof GoTime) return true
  for (const _ in v) return true
  return false
}

type BasicKind = 'bool' | 'int' | 'float' | 'string' | 'invalid'

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
  return 'invalid'
}

// A nil interface compares as no value at all.
const unwrap = (v: GoValue): GoValue => (v === null ? undefined : v)

const errBadComparisonType = 'invalid type for comparison'
const errNoComparison = 'missing argument for comparison'

function incompatible(a: GoValue, b: GoValue): GoFuncError {
  return new GoFuncError(`incompatible types for comparison: ${typeName(a)} and ${typeName(b)}`)
}

/** Non-basic values: nil equals nil, time compares by instant, lists and maps cannot be compared. */
function eqOther(a: GoValue, b: GoValue): boolean {
  const aNil = a === undefined
  const bNil = b === undefined
  if (aNil || bNil) return aNil === bNil
  const ta = typeName(a)
  const tb = typeName(b)
  // Go compares further only values of the same reflect kind (a []string with a []interface {} is "slice").
  if (goKindOf(a) !== goKindOf(b)) {
    throw new GoFuncError(`non-comparable types ${formatS(a)}: ${ta}, ${tb}: ${formatValue(b)}`)
  }
  if (a instanceof GoTime && b instanceof GoTime) return a.epochMs === b.epochMs && a.zone === b.zone
  if (Array.isArray(b) || isMap(b)) throw new GoFuncError(`non-comparable type ${formatS(b)}: ${tb}`)
  return a === b
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
      if (a !== undefined && b !== undefined) throw incompatible(a, b)
      truth = false
    } else if (k1 === 'invalid') truth = eqOther(a, b)
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
  if (k1 !== k2) throw incompatible(a, b)
  switch (k1) {
    case 'bool':
      throw new GoFuncError(errBadComparisonType)
    case 'string':
      return compareGoStrings(a as string, b as string) < 0
    case 'int':
      return (a as bigint) < (b as bigint)
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
