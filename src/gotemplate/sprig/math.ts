// Sprig's arithmetic: the integer functions cast every argument to int64
// (wrapping on overflow like Go) and return an int64, the *f functions go
// through shopspring/decimal, and round/floor/ceil use float64.

import { int64 } from '../value.ts'
import type { FuncMap, GoValue } from '../value.ts'
import { toFloat64, toInt64, wrapInt64 } from './convert.ts'
import { decimalOp } from './decimal.ts'
import { fail, fn, float, int } from './spec.ts'

function div(a: bigint, b: bigint): bigint {
  if (b === 0n) fail('runtime error: integer divide by zero')
  return wrapInt64(a / b)
}

function mod(a: bigint, b: bigint): bigint {
  if (b === 0n) fail('runtime error: integer divide by zero')
  return wrapInt64(a % b)
}

// math.Pow for an integral exponent, which Go computes by repeated squaring
// of the mantissa; the result can differ from JS's ** in the last bit.
function frexp(f: number): [number, number] {
  if (f === 0 || !Number.isFinite(f)) return [f, 0]
  let e = Math.floor(Math.log2(Math.abs(f))) + 1
  let m = f / 2 ** e
  // Correct log2 rounding at the edges.
  while (Math.abs(m) >= 1) {
    m /= 2
    e++
  }
  while (Math.abs(m) < 0.5) {
    m *= 2
    e--
  }
  return [m, e]
}

function ldexp(frac: number, exp: number): number {
  // Split the scaling so that no intermediate power of two overflows.
  while (exp > 1000) {
    frac *= 2 ** 1000
    exp -= 1000
  }
  while (exp < -1000) {
    frac *= 2 ** -1000
    exp += 1000
  }
  return frac * 2 ** exp
}

export function goPowInt(x: number, y: number): number {
  if (y === 0 || x === 1) return 1
  if (y === 1) return x
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN
  if (x === 0) return y < 0 ? Infinity : 0
  if (!Number.isFinite(x) || Math.abs(y) > 2 ** 63) return x ** y
  let a1 = 1
  let ae = 0
  let [x1, xe] = frexp(x)
  for (let i = Math.abs(y); i !== 0; i = Math.floor(i / 2)) {
    if (xe < -(1 << 12) || 1 << 12 < xe) {
      ae += xe
      break
    }
    if (i % 2 === 1) {
      a1 *= x1
      ae += xe
    }
    x1 *= x1
    xe <<= 1
    if (x1 < 0.5) {
      x1 += x1
      xe--
    }
  }
  if (y < 0) {
    a1 = 1 / a1
    ae = -ae
  }
  return ldexp(a1, ae)
}

function round(a: GoValue, places: number, roundOn = 0.5): number {
  const val = toFloat64(a)
  const pow = goPowInt(10, places)
  const digit = pow * val
  const frac = digit - Math.trunc(digit)
  const r = frac >= roundOn ? Math.ceil(digit) : Math.floor(digit)
  return r / pow
}

export const mathFuncs: FuncMap = {
  add1: fn(['any'], (a) => int64(wrapInt64(toInt64(a) + 1n))),
  add: fn([], (...v) => int64(v.reduce<bigint>((s, x) => wrapInt64(s + toInt64(x)), 0n)), 'any'),
  sub: fn(['any', 'any'], (a, b) => int64(wrapInt64(toInt64(a) - toInt64(b)))),
  div: fn(['any', 'any'], (a, b) => int64(div(toInt64(a), toInt64(b)))),
  mod: fn(['any', 'any'], (a, b) => int64(mod(toInt64(a), toInt64(b)))),
  mul: fn(['any'], (a, ...v) => int64(v.reduce<bigint>((p, x) => wrapInt64(p * toInt64(x)), toInt64(a))), 'any'),
  max: fn(['any'], (a, ...v) => int64(v.reduce<bigint>((m, x) => (toInt64(x) > m ? toInt64(x) : m), toInt64(a))), 'any'),
  biggest: fn(['any'], (a, ...v) => int64(v.reduce<bigint>((m, x) => (toInt64(x) > m ? toInt64(x) : m), toInt64(a))), 'any'),
  min: fn(['any'], (a, ...v) => int64(v.reduce<bigint>((m, x) => (toInt64(x) < m ? toInt64(x) : m), toInt64(a))), 'any'),
  maxf: fn(['any'], (a, ...v) => v.reduce<number>((m, x) => goMax(m, toFloat64(x)), toFloat64(a)), 'any'),
  minf: fn(['any'], (a, ...v) => v.reduce<number>((m, x) => goMin(m, toFloat64(x)), toFloat64(a)), 'any'),
  add1f: fn(['any'], (a) => decimalOp('add', a, [1n])),
  addf: fn([], (...v) => decimalOp('add', 0, v), 'any'),
  subf: fn(['any'], (a, ...v) => decimalOp('sub', a, v), 'any'),
  mulf: fn(['any'], (a, ...v) => decimalOp('mul', a, v), 'any'),
  divf: fn(['any'], (a, ...v) => decimalOp('div', a, v), 'any'),
  floor: fn(['any'], (a) => Math.floor(toFloat64(a))),
  ceil: fn(['any'], (a) => Math.ceil(toFloat64(a))),
  round: fn(['any', 'int'], (a, p, ...r) => round(a, int(p), r.length > 0 ? float(r[0]) : 0.5), 'float64'),
  randInt: fn(['int', 'int'], (lo, hi) => {
    const min = int(lo)
    const n = int(hi) - min
    if (n <= 0) fail('invalid argument to Intn')
    return BigInt(min + Math.floor(Math.random() * n))
  }),
}

// math.Max and math.Min: an infinity in the direction wins, then NaN, and +0 beats -0 for Max (the reverse for Min).
function goMax(a: number, b: number): number {
  if (a === Infinity || b === Infinity) return Infinity
  if (Number.isNaN(a) || Number.isNaN(b)) return NaN
  if (a === 0 && b === 0) return Object.is(a, -0) ? b : a
  return a > b ? a : b
}

function goMin(a: number, b: number): number {
  if (a === -Infinity || b === -Infinity) return -Infinity
  if (Number.isNaN(a) || Number.isNaN(b)) return NaN
  if (a === 0 && b === 0) return Object.is(a, -0) ? a : b
  return a < b ? a : b
}
