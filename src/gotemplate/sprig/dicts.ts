// Sprig's dict functions over map[string]interface{}. set, unset and merge
// change the map they are given, as in Go, and merge follows mergo (v1.0.1)
// for map values: nested maps merge, other values fill empty slots, and
// mergeOverwrite lets every source value win (nil included).

import { GoInt, GoObject, GoTime, getKey, hasKey, isMap, newMap, setKey } from '../value.ts'
import type { FuncMap, GoMap, GoValue } from '../value.ts'
import { empty } from './reflect.ts'
import { fail, fn, map, str } from './spec.ts'
import { strval } from './strings.ts'
import { goTypeOf, isGoMapValue, isNilSlice, nilSlice, sameGoType, tagType, taggedType } from './types.ts'
import { compareGoStrings } from './utf8.ts'

const sortedKeys = (m: GoMap): string[] => Object.keys(m).sort(compareGoStrings)

function dict(...v: GoValue[]): GoMap {
  const m = newMap()
  for (let i = 0; i < v.length; i += 2) setKey(m, strval(v[i] ?? null), i + 1 < v.length ? (v[i + 1] ?? null) : '')
  return m
}

const plainMap = (v: GoValue): v is GoMap => isGoMapValue(v)

export function mergeInto(dst: GoMap, src: GoMap, overwrite: boolean): void {
  for (const key of Object.keys(src)) {
    const s = getKey(src, key) ?? null
    const present = hasKey(dst, key)
    const d = present ? (getKey(dst, key) ?? null) : undefined
    if (s === null) {
      if (overwrite) setKey(dst, key, null)
      continue
    }
    if (plainMap(s) && d !== undefined && plainMap(d)) {
      mergeInto(d, s, overwrite)
      if (!empty(d)) continue
    }
    if (overwrite || !present || empty(d)) setKey(dst, key, s)
  }
}

function merge(overwrite: boolean) {
  return (d: GoValue, ...srcs: GoValue[]): GoValue => {
    const dst = map(d) ?? newMap()
    for (const s of srcs) {
      const src = map(s)
      if (src !== null) mergeInto(dst, src, overwrite)
    }
    return dst
  }
}

function deepCopy(v: GoValue): GoValue {
  if (v === null || v === undefined) fail('reflect: call of reflect.Value.Type on zero Value')
  const copy = (x: GoValue): GoValue => {
    if (x === null || x === undefined || typeof x !== 'object') return x
    // Times and typed integers are immutable here; sharing them is a copy.
    if (x instanceof GoTime || x instanceof GoInt) return x
    if (x instanceof GoObject) return x.deepCopy()
    if (Array.isArray(x)) {
      if (isNilSlice(x)) return nilSlice(goTypeOf(x))
      return sameGoType(x, (x as readonly GoValue[]).map(copy))
    }
    const m = newMap()
    for (const k of Object.keys(x)) setKey(m, k, copy(getKey(x as GoMap, k)))
    // copystructure keeps a named type: a copy of .Values is still chartutil.Values, a map to hasKey and merge.
    return sameGoType(x, m)
  }
  return copy(v)
}

function dig(...ps: GoValue[]): GoValue {
  if (ps.length < 3) fail('dig needs at least three arguments')
  // A type assertion to map[string]interface{}: a named map type such as chartutil.Values fails it, as in Go.
  const assertMap = (v: GoValue): GoMap => {
    if (!isMap(v ?? null) || (taggedType(v as GoMap) ?? 'map[string]interface {}') !== 'map[string]interface {}')
      fail(
        `interface conversion: interface {} is ${goTypeOf(v ?? null) === '<nil>' ? 'nil' : goTypeOf(v ?? null)}, not map[string]interface {}`,
      )
    return v as GoMap
  }
  let m = assertMap(ps[ps.length - 1] ?? null)
  const def = ps[ps.length - 2] ?? null
  const ks = ps.slice(0, -2).map((k) => {
    if (typeof k !== 'string') fail(`interface conversion: interface {} is ${goTypeOf(k ?? null)}, not string`)
    return k
  })
  for (let i = 0; i < ks.length; i++) {
    const k = ks[i] ?? ''
    if (!hasKey(m, k)) return def
    const step = getKey(m, k) ?? null
    if (i === ks.length - 1) return step
    m = assertMap(step)
  }
  return def
}

export const dictFuncs: FuncMap = {
  dict: fn([], dict, 'any'),
  get: fn(['map', 'string'], (d, k) => {
    const m = map(d)
    const key = str(k)
    return m !== null && hasKey(m, key) ? (getKey(m, key) ?? null) : ''
  }),
  set: fn(['map', 'string', 'any'], (d, k, v) => {
    const m = map(d)
    if (m === null) fail('assignment to entry in nil map')
    setKey(m, str(k), v ?? null)
    return m
  }),
  unset: fn(['map', 'string'], (d, k) => {
    const m = map(d)
    if (m === null) return newMap()
    delete m[str(k)]
    return m
  }),
  hasKey: fn(['map', 'string'], (d, k) => {
    const m = map(d)
    return m !== null && hasKey(m, str(k))
  }),
  pluck: fn(
    ['string'],
    (k, ...ds) => {
      const key = str(k)
      const out: GoValue[] = []
      for (const d of ds) {
        const m = map(d)
        if (m !== null && hasKey(m, key)) out.push(getKey(m, key) ?? null)
      }
      return out
    },
    'map',
  ),
  // Go returns keys and values in random map order; sorted order is one of the possible results.
  keys: fn(
    [],
    (...ds) => {
      const out: string[] = []
      for (const d of ds) {
        const m = map(d)
        if (m !== null) out.push(...sortedKeys(m))
      }
      return tagType(out, '[]string')
    },
    'map',
  ),
  values: fn(['map'], (d) => {
    const m = map(d)
    return m === null ? [] : sortedKeys(m).map((k) => getKey(m, k) ?? null)
  }),
  pick: fn(
    ['map'],
    (d, ...ks) => {
      const m = map(d)
      const out = newMap()
      for (const k of ks) {
        const key = str(k)
        if (m !== null && hasKey(m, key)) setKey(out, key, getKey(m, key) ?? null)
      }
      return out
    },
    'string',
  ),
  omit: fn(
    ['map'],
    (d, ...ks) => {
      const m = map(d)
      const drop = new Set(ks.map(str))
      const out = newMap()
      if (m !== null) for (const k of Object.keys(m)) if (!drop.has(k)) setKey(out, k, getKey(m, k) ?? null)
      return out
    },
    'string',
  ),
  merge: fn(['map'], merge(false), 'map'),
  mustMerge: fn(['map'], merge(false), 'map'),
  mergeOverwrite: fn(['map'], merge(true), 'map'),
  mustMergeOverwrite: fn(['map'], merge(true), 'map'),
  deepCopy: fn(['any'], deepCopy),
  mustDeepCopy: fn(['any'], deepCopy),
  dig: fn([], dig, 'any'),
}
