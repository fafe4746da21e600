// Helpers for declaring template functions with their Go signatures and for
// reading arguments whose kind the executor already checked.

import { GoFuncError } from '../value.ts'
import type { ArgKind, GoFunc, GoFuncSpec, GoMap, GoValue } from '../value.ts'
import { isMap } from '../value.ts'
import { goTypeOf } from './types.ts'

export function fn(params: readonly ArgKind[], body: GoFunc, variadic?: ArgKind): GoFuncSpec {
  return variadic === undefined ? { fn: body, params } : { fn: body, params, variadic }
}

/** A Go panic or error return inside a function: an execution error. */
export function fail(message: string): never {
  throw new GoFuncError(message)
}

export function str(v: GoValue): string {
  if (typeof v !== 'string') fail(`wrong type for value; expected string; got ${goTypeOf(v)}`)
  return v
}

/** An int parameter as a JS number (Go ints here are indices and counts). */
export function int(v: GoValue): number {
  if (typeof v !== 'bigint') fail(`wrong type for value; expected int; got ${goTypeOf(v)}`)
  return Number(v)
}

export function bigint(v: GoValue): bigint {
  if (typeof v !== 'bigint') fail(`wrong type for value; expected int; got ${goTypeOf(v)}`)
  return v
}

export function float(v: GoValue): number {
  if (typeof v !== 'number') fail(`wrong type for value; expected float64; got ${goTypeOf(v)}`)
  return v
}

export function bool(v: GoValue): boolean {
  if (typeof v !== 'boolean') fail(`wrong type for value; expected bool; got ${goTypeOf(v)}`)
  return v
}

/** A map[string]interface{} parameter; nil arrives as null. */
export function map(v: GoValue): GoMap | null {
  if (v === null || v === undefined) return null
  if (!isMap(v)) fail(`wrong type for value; expected map[string]interface {}; got ${goTypeOf(v)}`)
  return v
}

/** Go's runtime panic text for an out-of-range slice expression s[lo:hi] over n bytes. */
export function sliceBoundsPanic(lo: number | undefined, hi: number | undefined, n: number): never {
  if (hi !== undefined && (hi < 0 || hi > n)) fail(`runtime error: slice bounds out of range [:${hi}] with length ${n}`)
  if (lo !== undefined && hi !== undefined) fail(`runtime error: slice bounds out of range [${lo}:${hi}]`)
  fail(`runtime error: slice bounds out of range [${lo ?? 0}:${n}]`)
}
