// Type conversions: spf13/cast (v1.7.0) as Sprig's int, int64, float64, add,
// max... use it, strconv's number syntax, and the JSON functions.

import { GoInt, int64 } from '../value.ts'
import type { FuncMap, GoValue } from '../value.ts'
import { formatV } from './gofmt.ts'
import { decodeJSON, encodeJSON, JSONError } from './gojson.ts'
import { fail, fn, str } from './spec.ts'
import { strval } from './strings.ts'
import { underscoreOK } from '../../encoding/gostrconv.ts'

const MAX_INT64 = (1n << 63n) - 1n
const MIN_INT64 = -(1n << 63n)

export const wrapInt64 = (v: bigint): bigint => BigInt.asIntN(64, v)

function lower(c: string | undefined): string {
  return (c ?? '').toLowerCase()
}

/**
 * strconv.ParseInt(s, base, 64): undefined on a syntax error, 'range' when
 * the value does not fit (Go then returns the clamped value with the error).
 */
export function parseGoInt(s: string, base: number): bigint | undefined | { range: bigint } {
  if (s === '') return undefined
  const s0 = s
  let neg = false
  if (s[0] === '+' || s[0] === '-') {
    neg = s[0] === '-'
    s = s.slice(1)
  }
  if (s === '') return undefined
  const base0 = base === 0
  if (base0) {
    base = 10
    if (s[0] === '0') {
      const p = lower(s[1])
      if (s.length >= 3 && p === 'b') [base, s] = [2, s.slice(2)]
      else if (s.length >= 3 && p === 'o') [base, s] = [8, s.slice(2)]
      else if (s.length >= 3 && p === 'x') [base, s] = [16, s.slice(2)]
      else [base, s] = [8, s.slice(1)]
    }
  }
  let n = 0n
  const b = BigInt(base)
  let underscores = false
  // Go stops at the first digit that overflows uint64, even if the rest of
  // the text would be a syntax error.
  const MAX_U64 = (1n << 64n) - 1n
  let overflow = false
  for (const c of s) {
    if (c === '_' && base0) {
      underscores = true
      continue
    }
    const d = /[0-9a-zA-Z]/.test(c) ? parseInt(c, 36) : NaN
    if (Number.isNaN(d) || d >= base) return undefined
    n = n * b + BigInt(d)
    if (n > MAX_U64) {
      overflow = true
      break
    }
  }
  if (!overflow && underscores && !underscoreOK(s0)) return undefined
  if (overflow) return { range: neg ? MIN_INT64 : MAX_INT64 }
  if (neg) n = -n
  if (n > MAX_INT64) return { range: MAX_INT64 }
  if (n < MIN_INT64) return { range: MIN_INT64 }
  return n
}

const plainInt = (r: ReturnType<typeof parseGoInt>): bigint | undefined => (typeof r === 'bigint' ? r : undefined)

/** strconv.ParseFloat(s, 64); undefined on a syntax or range error. */
export function parseGoFloat(s: string): number | undefined {
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(s)
  if (special) {
    if (lower(special[2]) === 'nan') return special[1] === '' ? NaN : undefined
    return special[1] === '-' ? -Infinity : Infinity
  }
  const hex = /^([+-]?)0[xX]([0-9a-fA-F_]*)(?:\.([0-9a-fA-F_]*))?[pP]([+-]?[0-9_]+)$/.exec(s)
  if (hex) {
    if (!underscoreOK(s)) return undefined
    const [, sign, ip = '', fp = '', ex = '0'] = hex
    const digits = (ip + fp).replaceAll('_', '')
    if (digits === '') return undefined
    const mant = BigInt('0x' + digits)
    const e = Number(ex.replaceAll('_', '')) - 4 * fp.replaceAll('_', '').length
    const v = Number(mant) * 2 ** e
    if (!Number.isFinite(v)) return undefined
    return sign === '-' ? -v : v
  }
  if (!/^[+-]?(?:[0-9_]+\.?[0-9_]*|\.[0-9_]+)(?:[eE][+-]?[0-9][0-9_]*)?$/.test(s)) return undefined
  if (!/[0-9]/.test(s.replace(/[eE].*$/, ''))) return undefined
  if (s.includes('_') && !underscoreOK(s)) return undefined
  const v = Number(s.replaceAll('_', ''))
  if (Number.isNaN(v) || !Number.isFinite(v)) return undefined
  return v
}

/** Go's float64 to int64 conversion on amd64: truncation, and the minimum int64 when out of range. */
export function floatToInt64(f: number): bigint {
  if (!Number.isFinite(f) || f >= 2 ** 63 || f < -(2 ** 63)) return MIN_INT64
  return BigInt(Math.trunc(f))
}

// cast's trimZeroDecimal: "12.00" becomes "12", anything else is kept.
function trimZeroDecimal(s: string): string {
  let foundZero = false
  for (let i = s.length; i > 0; i--) {
    const c = s[i - 1]
    if (c === '.') {
      if (foundZero) return s.slice(0, i - 1)
    } else if (c === '0') foundZero = true
    else return s
  }
  return s
}

/**
 * The integer cast accepts: the value of a Go integer of a built-in type, or
 * of time.Month or time.Weekday; cast has no case for other named types
 * (time.Duration) and gives 0 for them.
 */
function castableInteger(v: GoInt): bigint {
  if (v.type === v.kind || v.type === 'time.Month' || v.type === 'time.Weekday') return v.value
  return 0n
}

/** cast.ToInt64: errors give 0; a uint64 wraps. */
export function toInt64(v: GoValue): bigint {
  switch (typeof v) {
    case 'bigint':
      return v
    case 'number':
      return floatToInt64(v)
    case 'string':
      return plainInt(parseGoInt(trimZeroDecimal(v), 0)) ?? 0n
    case 'boolean':
      return v ? 1n : 0n
  }
  if (v instanceof GoInt) return BigInt.asIntN(64, castableInteger(v))
  return 0n
}

/** cast.ToInt as a JS number, for indices. */
export function toInt(v: GoValue): number {
  return Number(toInt64(v))
}

/** cast.ToFloat64: errors give 0. */
export function toFloat64(v: GoValue): number {
  switch (typeof v) {
    case 'bigint':
      return Number(v)
    case 'number':
      return v
    case 'string':
      return parseGoFloat(v) ?? 0
    case 'boolean':
      return v ? 1 : 0
  }
  if (v instanceof GoInt) return Number(castableInteger(v))
  return 0
}

// strconv.Atoi: short inputs take a fast path that returns 0 on any error;
// longer ones return the clamped value on overflow.
function atoi(s: string): bigint {
  if (s.length > 0 && s.length < 19) return /^[+-]?[0-9]+$/.test(s) ? BigInt(s) : 0n
  const r = parseGoInt(s, 10)
  if (r === undefined) return 0n
  return typeof r === 'bigint' ? r : r.range
}

function toDecimal(v: GoValue): bigint {
  const r = parseGoInt(formatV(v), 8)
  return typeof r === 'bigint' ? r : 0n
}

function json(v: GoValue, escapeHTML: boolean, indent: string): string | JSONError {
  try {
    return encodeJSON(v, { escapeHTML, indent })
  } catch (e) {
    if (e instanceof JSONError) return e
    throw e
  }
}

const orEmpty = (r: string | JSONError): string => (typeof r === 'string' ? r : '')
const orFail = (r: string | JSONError): string => (typeof r === 'string' ? r : fail(r.message))

function fromJson(s: string): GoValue {
  try {
    return decodeJSON(s)
  } catch (e) {
    if (e instanceof JSONError) return null
    throw e
  }
}

export const convertFuncs: FuncMap = {
  toString: fn(['any'], (v) => strval(v)),
  atoi: fn(['string'], (s) => atoi(str(s))),
  int: fn(['any'], (v) => toInt64(v)),
  int64: fn(['any'], (v) => int64(toInt64(v))),
  float64: fn(['any'], (v) => toFloat64(v)),
  toDecimal: fn(['any'], (v) => int64(toDecimal(v))),
  toJson: fn(['any'], (v) => orEmpty(json(v, true, ''))),
  mustToJson: fn(['any'], (v) => orFail(json(v, true, ''))),
  toPrettyJson: fn(['any'], (v) => orEmpty(json(v, true, '  '))),
  mustToPrettyJson: fn(['any'], (v) => orFail(json(v, true, '  '))),
  // toRawJson panics where toJson returns "": both end with an error for the panic.
  toRawJson: fn(['any'], (v) => orFail(json(v, false, ''))),
  mustToRawJson: fn(['any'], (v) => orFail(json(v, false, ''))),
  fromJson: fn(['string'], (s) => fromJson(str(s))),
  mustFromJson: fn(['string'], (s) => {
    try {
      return decodeJSON(str(s))
    } catch (e) {
      if (e instanceof JSONError) fail(e.message)
      throw e
    }
  }),
}
