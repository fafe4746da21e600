// Sprig's defaults and flow functions: default, empty, coalesce, all, any,
// ternary and fail. "Empty" is Go's zero value test (see reflect.ts).

import type { FuncMap } from '../value.ts'
import { empty } from './reflect.ts'
import { bool, fail, fn, str } from './spec.ts'

export const defaultFuncs: FuncMap = {
  default: fn(['any'], (d, ...given) => (given.length === 0 || empty(given[0]) ? (d ?? null) : (given[0] ?? null)), 'any'),
  empty: fn(['any'], (v) => empty(v)),
  coalesce: fn([], (...v) => v.find((x) => !empty(x)) ?? null, 'any'),
  all: fn([], (...v) => v.every((x) => !empty(x)), 'any'),
  any: fn([], (...v) => v.some((x) => !empty(x)), 'any'),
  ternary: fn(['any', 'any', 'bool'], (t, f, c) => (bool(c) ? (t ?? null) : (f ?? null))),
  fail: fn(['string'], (msg) => fail(str(msg))),
}
