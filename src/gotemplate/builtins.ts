// The functions text/template predefines. Each declares Go's signature so the
// executor checks arity and converts arguments as Go does; the messages of
// their errors are Go's (the executor prefixes "error calling NAME: ").
// `and` and `or` are evaluated lazily by the executor itself (Go 1.18+ short
// circuit); their `fn` is only used when called with already evaluated values.

import { GoFuncError, GoInt, GoObject, isMap, uint8 } from './value.ts'
import type { FuncMap, GoFuncSpec, GoValue } from './value.ts'
import { eq, ge, gt, isTrue, le, lt, ne } from './compare.ts'
import { htmlEscape, jsEscape, queryEscape } from './escape.ts'
import { sprint, sprintf, sprintln, typeName } from './fmt.ts'
import { goTypeOf, tagType, taggedType } from './sprig/types.ts'
import { byteLength, sliceBytes, utf8 } from './sprig/utf8.ts'

const fail = (message: string): never => {
  throw new GoFuncError(message)
}

/** The type len and index name in errors: they look through a pointer first. */
const pointeeTypeName = (v: GoValue): string => (v instanceof GoObject && v.goKind === 'ptr' ? v.goType.slice(1) : typeName(v))

// Go's message when a built-in calls a method on a zero reflect.Value.
const zeroValuePanic = 'reflect: call of reflect.Value.Type on zero Value'

function length(item: GoValue): GoValue {
  if (item === undefined) return fail(zeroValuePanic)
  if (item === null) return fail('len of nil pointer')
  if (typeof item === 'string') return BigInt(byteLength(item))
  if (Array.isArray(item)) return BigInt(item.length)
  if (isMap(item)) return BigInt(Object.keys(item).length)
  return fail(`len of type ${pointeeTypeName(item)}`)
}

/**
 * An index argument of any integer type for a slice, array or string of
 * length n (Go checks > n, then reflect panics at n). An unsigned index is
 * read as an int64, as Go's indexArg converts it.
 */
function indexArg(index: GoValue, n: number): number {
  if (index === undefined || index === null) return fail('cannot index slice/array with nil')
  let x: bigint
  if (typeof index === 'bigint') x = index
  else if (index instanceof GoInt) x = BigInt.asIntN(64, index.value)
  else return fail(`cannot index slice/array with type ${typeName(index)}`)
  if (x < 0n || x > BigInt(n)) return fail(`index out of range: ${x}`)
  return Number(x)
}

// The zero value Go returns for a missing key, by map type.
function zeroOfElem(m: object): GoValue {
  return taggedType(m) === 'map[string]string' ? '' : null
}

function index(item: GoValue, ...indexes: GoValue[]): GoValue {
  let v: GoValue = item === null ? undefined : item
  if (v === undefined) return fail('index of untyped nil')
  for (const raw of indexes) {
    const idx = raw === null ? undefined : raw
    if (v === null || v === undefined) return fail('index of nil pointer')
    if (typeof v === 'string') {
      const b = utf8(v)
      const x = indexArg(idx, b.length)
      if (x === b.length) return fail('reflect: string index out of range')
      v = uint8(b[x] ?? 0)
    } else if (Array.isArray(v)) {
      const list = v as readonly GoValue[]
      const x = indexArg(idx, list.length)
      if (x === list.length) return fail('reflect: slice index out of range')
      v = list[x] ?? null
    } else if (isMap(v)) {
      if (idx === undefined) return fail('value is nil; should be of type string')
      if (typeof idx !== 'string') return fail(`value has type ${typeName(idx)}; should be string`)
      v = Object.hasOwn(v, idx) ? v[idx] : zeroOfElem(v)
    } else {
      return fail(`can't index item of type ${pointeeTypeName(v)}`)
    }
  }
  return v
}

/**
 * slice item i j k. Unlike index, Go's slice does not look inside an
 * interface{} index, so an index read from a map or list (ifaces[i]) fails
 * whatever it holds.
 */
export function sliceOf(item: GoValue, indexes: readonly GoValue[], ifaces: readonly boolean[] = []): GoValue {
  const v = item === null ? undefined : item
  if (v === undefined) return fail('slice of untyped nil')
  if (indexes.length > 3) return fail(`too many slice indexes: ${indexes.length}`)
  let cap: number
  if (typeof v === 'string') {
    if (indexes.length === 3) return fail('cannot 3-index slice a string')
    cap = byteLength(v)
  } else if (Array.isArray(v)) {
    // Go allows slicing up to the capacity; the value model has only the length.
    cap = v.length
  } else return fail(`can't slice item of type ${typeName(v)}`)
  const idx = [0, cap, cap]
  for (let i = 0; i < indexes.length; i++) {
    if (ifaces[i] === true) return fail('cannot index slice/array with type interface {}')
    idx[i] = indexArg(indexes[i] === null ? undefined : indexes[i], cap)
  }
  const [i0 = 0, i1 = 0, i2 = 0] = idx
  if (i0 > i1) return fail(`invalid slice index: ${i0} > ${i1}`)
  if (indexes.length === 3 && i1 > i2) return fail(`invalid slice index: ${i1} > ${i2}`)
  if (typeof v === 'string') return sliceBytes(v, i0, i1)
  const out = (v as readonly GoValue[]).slice(i0, i1)
  const tag = taggedType(v)
  return tag === undefined ? out : tagType(out, tag)
}

/** Arguments of html, js and urlquery: one string as is, otherwise Sprint with nil shown as <no value>. */
function evalArgs(args: readonly GoValue[]): string {
  if (args.length === 1 && typeof args[0] === 'string') return args[0]
  return sprint(args.map((a) => (a === null || a === undefined ? '<no value>' : a)))
}

function callBuiltin(fn: GoValue): GoValue {
  // The value model has no function values; Go's messages for what it sees instead.
  if (fn === null || fn === undefined) return fail('call of nil')
  return fail(`non-function of type ${goTypeOf(fn)}`)
}

const spec = (fn: GoFuncSpec['fn'], params: GoFuncSpec['params'], variadic?: GoFuncSpec['variadic']): GoFuncSpec =>
  Object.freeze(variadic === undefined ? { fn, params } : { fn, params, variadic })

export const andSpec = spec(
  (...a) => {
    for (const v of a) if (!isTrue(v)) return v
    return a[a.length - 1]
  },
  ['value'],
  'value',
)

export const orSpec = spec(
  (...a) => {
    for (const v of a) if (isTrue(v)) return v
    return a[a.length - 1]
  },
  ['value'],
  'value',
)

export const callSpec = spec((fn) => callBuiltin(fn), ['value'], 'value')

export const sliceSpec = spec((item, ...rest) => sliceOf(item, rest), ['value'], 'value')

/** The text/template built-in functions. A FuncMap entry of the same name replaces one. */
export const builtinFuncs: FuncMap = Object.freeze({
  and: andSpec,
  call: callSpec,
  html: spec((...a) => htmlEscape(evalArgs(a)), [], 'any'),
  index: spec((item, ...rest) => index(item, ...rest), ['value'], 'value'),
  slice: sliceSpec,
  js: spec((...a) => jsEscape(evalArgs(a)), [], 'any'),
  len: spec((item) => length(item), ['value']),
  not: spec((v) => !isTrue(v), ['value']),
  or: orSpec,
  print: spec((...a) => sprint(a), [], 'any'),
  printf: spec((format, ...a) => sprintf(format as string, a), ['string'], 'any'),
  println: spec((...a) => sprintln(a), [], 'any'),
  urlquery: spec((...a) => queryEscape(evalArgs(a)), [], 'any'),
  eq: spec((a, ...rest) => eq(a, ...rest), ['value'], 'value'),
  ge: spec((a, b) => ge(a, b), ['value', 'value']),
  gt: spec((a, b) => gt(a, b), ['value', 'value']),
  le: spec((a, b) => le(a, b), ['value', 'value']),
  lt: spec((a, b) => lt(a, b), ['value', 'value']),
  ne: spec((a, b) => ne(a, b), ['value', 'value']),
})
