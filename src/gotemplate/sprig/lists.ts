// Sprig's list functions. They accept any slice through reflection and build
// new []interface{} values; the list-or-error checks and the nil results
// (first of an empty list is nil, rest of one is a nil slice) follow Go.

import type { FuncMap, GoValue } from '../value.ts'
import { toInt } from './convert.ts'
import { deepEqual, empty } from './reflect.ts'
import { fail, fn, int } from './spec.ts'
import { strslice, strval } from './strings.ts'
import { goKindOf, nilSlice, tagType, taggedType } from './types.ts'
import { compareGoStrings } from './utf8.ts'

type List = readonly GoValue[]

const NIL_DEREF = 'runtime error: invalid memory address or nil pointer dereference'

/** reflect.TypeOf(v).Kind() must be a slice; otherwise Go errors with `what` and the kind. */
function listOf(v: GoValue, what: (kind: string) => string): List {
  if (v === null || v === undefined) fail(NIL_DEREF)
  if (!Array.isArray(v)) fail(what(goKindOf(v)))
  return v as List
}

const onType = (verb: string) => (kind: string) => `Cannot ${verb} on type ${kind}`

function push(l: GoValue, v: GoValue): GoValue {
  return [...listOf(l, onType('push')), v]
}

function prepend(l: GoValue, v: GoValue): GoValue {
  return [v, ...listOf(l, onType('prepend'))]
}

function chunk(size: number, l: GoValue): GoValue {
  const list = listOf(l, (kind) => `Cannot chunk type ${kind}`)
  if (size <= 0) fail('runtime error: makeslice: len out of range')
  const out: GoValue[] = []
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size))
  return tagType(out, '[][]interface {}')
}

function first(l: GoValue): GoValue {
  const list = listOf(l, onType('find first'))
  return list.length === 0 ? null : list[0]
}

function last(l: GoValue): GoValue {
  const list = listOf(l, onType('find last'))
  return list.length === 0 ? null : list[list.length - 1]
}

function rest(l: GoValue): GoValue {
  const list = listOf(l, onType('find rest'))
  return list.length === 0 ? nilSlice() : list.slice(1)
}

function initial(l: GoValue): GoValue {
  const list = listOf(l, onType('find initial'))
  return list.length === 0 ? nilSlice() : list.slice(0, -1)
}

function reverse(l: GoValue): GoValue {
  return [...listOf(l, onType('find reverse'))].reverse()
}

function compact(l: GoValue): GoValue {
  return listOf(l, onType('compact')).filter((e) => !empty(e))
}

function uniq(l: GoValue): GoValue {
  const out: GoValue[] = []
  for (const e of listOf(l, onType('find uniq'))) if (!out.some((x) => deepEqual(e, x))) out.push(e)
  return out
}

function without(l: GoValue, ...omit: GoValue[]): GoValue {
  return listOf(l, onType('find without')).filter((e) => !omit.some((o) => deepEqual(e, o)))
}

function has(needle: GoValue, haystack: GoValue): boolean {
  if (haystack === null || haystack === undefined) return false
  return listOf(haystack, onType('find has')).some((e) => deepEqual(needle, e))
}

function slice(l: GoValue, ...indices: GoValue[]): GoValue {
  const list = listOf(l, (kind) => `list should be type of slice or array but ${kind}`)
  if (list.length === 0) return null
  const start = indices.length > 0 ? toInt(indices[0]) : 0
  const end = indices.length < 2 ? list.length : toInt(indices[1])
  if (start < 0 || end < start || end > list.length) fail('reflect.Value.Slice: slice index out of bounds')
  const out = list.slice(start, end)
  const tag = taggedType(list)
  return tag !== undefined ? tagType(out, tag) : out
}

function concat(...lists: GoValue[]): GoValue {
  const out: GoValue[] = []
  for (const l of lists) out.push(...listOf(l, (kind) => `Cannot concat type ${kind} as list`))
  return out.length === 0 ? nilSlice() : out
}

function sortAlpha(l: GoValue): GoValue {
  if (!Array.isArray(l)) return tagType([strval(l ?? null)], '[]string')
  return tagType(strslice(l).sort(compareGoStrings), '[]string')
}

// Lists are built before any range limit applies; this bound keeps a typo
// such as `until 1000000000` from exhausting memory.
export const MAX_BUILT_LIST = 10_000_000

export function untilStep(start: number, stop: number, step: number): bigint[] {
  const v: bigint[] = []
  const n = step === 0 ? 0 : Math.ceil((stop - start) / step)
  if (n > MAX_BUILT_LIST) fail(`list of ${n} elements exceeds the limit of ${MAX_BUILT_LIST}`)
  if (stop < start) {
    if (step >= 0) return v
    for (let i = start; i > stop; i += step) v.push(BigInt(i))
    return v
  }
  if (step <= 0) return v
  for (let i = start; i < stop; i += step) v.push(BigInt(i))
  return v
}

function seq(...params: number[]): string {
  let inc = 1
  const join = (v: bigint[]): string => v.join(' ')
  switch (params.length) {
    case 0:
      return ''
    case 1: {
      const end = params[0] ?? 0
      if (end < 1) inc = -1
      return join(untilStep(1, end + inc, inc))
    }
    case 2: {
      const [start = 0, end = 0] = params
      const step = end < start ? -1 : 1
      return join(untilStep(start, end + step, step))
    }
    case 3: {
      const [start = 0, step = 0, end = 0] = params
      if (end < start) {
        inc = -1
        if (step > 0) return ''
      }
      return join(untilStep(start, end + inc, step))
    }
    default:
      return ''
  }
}

// Each Sprig list function panics on a bad argument and its must* twin
// returns the error; both end the execution with an error here.
const both = (name: string, spec: ReturnType<typeof fn>): Record<string, ReturnType<typeof fn>> => ({
  [name]: spec,
  ['must' + name[0]?.toUpperCase() + name.slice(1)]: spec,
})

export const listFuncs: FuncMap = {
  list: fn([], (...v) => v, 'any'),
  tuple: fn([], (...v) => v, 'any'),
  ...both('push', fn(['any', 'any'], push)),
  ...both('append', fn(['any', 'any'], push)),
  ...both('prepend', fn(['any', 'any'], prepend)),
  ...both(
    'chunk',
    fn(['int', 'any'], (n, l) => chunk(int(n), l)),
  ),
  ...both('first', fn(['any'], first)),
  ...both('last', fn(['any'], last)),
  ...both('rest', fn(['any'], rest)),
  ...both('initial', fn(['any'], initial)),
  ...both('reverse', fn(['any'], reverse)),
  ...both('compact', fn(['any'], compact)),
  ...both('uniq', fn(['any'], uniq)),
  ...both('without', fn(['any'], without, 'any')),
  ...both('has', fn(['any', 'any'], has)),
  ...both('slice', fn(['any'], slice, 'any')),
  concat: fn([], concat, 'any'),
  sortAlpha: fn(['any'], sortAlpha),
  until: fn(['int'], (n) => {
    const count = int(n)
    return tagType(untilStep(0, count, count < 0 ? -1 : 1), '[]int')
  }),
  untilStep: fn(['int', 'int', 'int'], (a, b, c) => tagType(untilStep(int(a), int(b), int(c)), '[]int')),
  seq: fn([], (...p) => seq(...p.map(int)), 'int'),
}
