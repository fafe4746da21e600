// The slice of shopspring/decimal behind Sprig's addf, subf, mulf and divf:
// each float64 argument becomes the shortest decimal that round-trips, the
// arithmetic is exact (division rounds half away from zero at 16 places), and
// the result is the float64 nearest to the exact decimal.

import type { GoValue } from '../value.ts'
import { toFloat64 } from './convert.ts'
import { formatFloatG, shortestDigits } from './gofmt.ts'
import { fail } from './spec.ts'

interface Decimal {
  readonly coef: bigint
  readonly exp: number
}

const DIVISION_PRECISION = 16

function fromFloat(f: number): Decimal {
  if (!Number.isFinite(f)) fail(`Cannot create a Decimal from ${formatFloatG(f)}`)
  if (f === 0) return { coef: 0n, exp: 0 }
  const { digits, dp } = shortestDigits(f)
  const coef = BigInt(digits)
  return { coef: f < 0 ? -coef : coef, exp: dp - digits.length }
}

const pow10 = (n: number): bigint => 10n ** BigInt(n)

function align(a: Decimal, b: Decimal): [bigint, bigint, number] {
  const e = Math.min(a.exp, b.exp)
  return [a.coef * pow10(a.exp - e), b.coef * pow10(b.exp - e), e]
}

function add(a: Decimal, b: Decimal): Decimal {
  const [x, y, e] = align(a, b)
  return { coef: x + y, exp: e }
}

function sub(a: Decimal, b: Decimal): Decimal {
  const [x, y, e] = align(a, b)
  return { coef: x - y, exp: e }
}

function mul(a: Decimal, b: Decimal): Decimal {
  return { coef: a.coef * b.coef, exp: a.exp + b.exp }
}

function cmp(a: Decimal, b: Decimal): number {
  const [x, y] = align(a, b)
  return x < y ? -1 : x > y ? 1 : 0
}

const sign = (v: bigint): number => (v < 0n ? -1 : v > 0n ? 1 : 0)
const abs = (v: bigint): bigint => (v < 0n ? -v : v)

function div(d: Decimal, d2: Decimal): Decimal {
  if (d2.coef === 0n) fail('decimal division by 0')
  const precision = DIVISION_PRECISION
  const scale = -precision
  const e = d.exp - d2.exp - scale
  let aa: bigint
  let bb: bigint
  let scalerest: number
  if (e < 0) {
    aa = d.coef
    bb = d2.coef * pow10(-e)
    scalerest = d.exp
  } else {
    aa = d.coef * pow10(e)
    bb = d2.coef
    scalerest = scale + d2.exp
  }
  const q: Decimal = { coef: aa / bb, exp: scale }
  const r: Decimal = { coef: aa % bb, exp: scalerest }
  const r2: Decimal = { coef: abs(r.coef) * 2n, exp: r.exp + precision }
  if (cmp(r2, { coef: abs(d2.coef), exp: d2.exp }) < 0) return q
  const unit: Decimal = { coef: 1n, exp: -precision }
  return sign(d.coef) * sign(d2.coef) < 0 ? sub(q, unit) : add(q, unit)
}

function toNumber(d: Decimal): number {
  return Number(`${d.coef}e${d.exp}`)
}

const ops = { add, sub, mul, div } as const

/** Sprig's execDecimalOp. */
export function decimalOp(op: keyof typeof ops, first: GoValue, rest: readonly GoValue[]): number {
  let acc = fromFloat(toFloat64(first))
  for (const x of rest) acc = ops[op](acc, fromFloat(toFloat64(x)))
  return toNumber(acc)
}
