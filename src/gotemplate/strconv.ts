// The parts of Go's strconv that template output depends on: quoting (%q and
// error messages), unquoting of string and character literals, Go number
// literal syntax, and float formatting with Go's exact rounding (JS toFixed
// rounds ties away from zero; Go rounds the exact binary value half to even).

import { isPrint } from './sprig/unicode.ts'

const lowerHex = '0123456789abcdef'

export class SyntaxError_ extends Error {}

function hex2(n: number): string {
  return (lowerHex[n >> 4] ?? '0') + (lowerHex[n & 15] ?? '0')
}

function escapeRune(r: number, quote: number, asciiOnly: boolean): string {
  if (r === quote || r === 0x5c) return '\\' + String.fromCharCode(r)
  if (asciiOnly ? r < 0x80 && isPrint(r) : isPrint(r)) return String.fromCodePoint(r)
  switch (r) {
    case 0x07:
      return '\\a'
    case 0x08:
      return '\\b'
    case 0x0c:
      return '\\f'
    case 0x0a:
      return '\\n'
    case 0x0d:
      return '\\r'
    case 0x09:
      return '\\t'
    case 0x0b:
      return '\\v'
  }
  if (r < 0x20 || r === 0x7f) return '\\x' + hex2(r)
  if (r < 0x10000) return '\\u' + r.toString(16).padStart(4, '0')
  return '\\U' + r.toString(16).padStart(8, '0')
}

/** strconv.Quote (asciiOnly: strconv.QuoteToASCII). */
export function quote(s: string, asciiOnly = false): string {
  let out = '"'
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c) {
      out += s[i]
      continue
    }
    let r = s.codePointAt(i) ?? 0xfffd
    if (r > 0xffff) i++
    // A lone surrogate cannot come from UTF-8 text; Go would hold U+FFFD.
    else if (r >= 0xd800 && r <= 0xdfff) r = 0xfffd
    out += escapeRune(r, 0x22, asciiOnly)
  }
  return out + '"'
}

/** strconv.QuoteRune (asciiOnly: QuoteRuneToASCII); invalid code points become U+FFFD. */
export function quoteRune(r: number, asciiOnly = false): string {
  if (r < 0 || r > 0x10ffff || (r >= 0xd800 && r <= 0xdfff)) r = 0xfffd
  return "'" + escapeRune(r, 0x27, asciiOnly) + "'"
}

/** strconv.CanBackquote: a single-line raw string without control characters. */
export function canBackquote(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if ((c < 0x20 && c !== 0x09) || c === 0x60 || c === 0x7f || c === 0xfeff) return false
    if (c >= 0xd800 && c <= 0xdfff) {
      const d = s.charCodeAt(i + 1)
      if (c > 0xdbff || !(d >= 0xdc00 && d <= 0xdfff)) return false
      i++
    }
  }
  return true
}

function hexVal(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10
  return -1
}

/**
 * One character of a quoted literal starting at s[i] (Go's strconv.UnquoteChar).
 * Returns the value, whether it is a single byte (\x and octal escapes) rather
 * than a rune, and the index after it. Throws SyntaxError_ on a bad escape.
 */
export function unquoteChar(s: string, i: number, quote: number): { value: number; isByte: boolean; next: number } {
  const c = s.codePointAt(i)
  if (c === undefined) throw new SyntaxError_('invalid syntax')
  if (c === quote && (quote === 0x27 || quote === 0x22)) throw new SyntaxError_('invalid syntax')
  if (c !== 0x5c) return { value: c, isByte: false, next: i + (c > 0xffff ? 2 : 1) }
  const e = s.charCodeAt(i + 1)
  let j = i + 2
  switch (e) {
    case 0x61:
      return { value: 7, isByte: false, next: j }
    case 0x62:
      return { value: 8, isByte: false, next: j }
    case 0x66:
      return { value: 12, isByte: false, next: j }
    case 0x6e:
      return { value: 10, isByte: false, next: j }
    case 0x72:
      return { value: 13, isByte: false, next: j }
    case 0x74:
      return { value: 9, isByte: false, next: j }
    case 0x76:
      return { value: 11, isByte: false, next: j }
    case 0x5c:
      return { value: 0x5c, isByte: false, next: j }
    case 0x78: // \xHH
    case 0x75: // \uHHHH
    case 0x55: {
      // \UHHHHHHHH
      const n = e === 0x78 ? 2 : e === 0x75 ? 4 : 8
      let v = 0
      for (let k = 0; k < n; k++, j++) {
        const h = hexVal(s.charCodeAt(j))
        if (h < 0) throw new SyntaxError_('invalid syntax')
        v = v * 16 + h
      }
      if (e === 0x78) return { value: v, isByte: true, next: j }
      if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) throw new SyntaxError_('invalid syntax')
      return { value: v, isByte: false, next: j }
    }
    case 0x30:
    case 0x31:
    case 0x32:
    case 0x33:
    case 0x34:
    case 0x35:
    case 0x36:
    case 0x37: {
      let v = e - 0x30
      for (let k = 0; k < 2; k++, j++) {
        const d = s.charCodeAt(j) - 0x30
        if (!(d >= 0 && d <= 7)) throw new SyntaxError_('invalid syntax')
        v = v * 8 + d
      }
      if (v > 255) throw new SyntaxError_('invalid syntax')
      return { value: v, isByte: true, next: j }
    }
    case 0x27:
    case 0x22:
      if (e !== quote) throw new SyntaxError_('invalid syntax')
      return { value: e, isByte: false, next: j }
  }
  throw new SyntaxError_('invalid syntax')
}

const decoder = new TextDecoder('utf-8', { fatal: false })

/**
 * strconv.Unquote of a "..." or `...` literal as the lexer delimited it.
 * Byte escapes (\xff, \377) are assembled as UTF-8; bytes that do not form
 * valid UTF-8 cannot live in a JS string and decode to U+FFFD.
 */
export function unquote(lit: string): string {
  const q = lit.charCodeAt(0)
  if (q === 0x60) return lit.slice(1, -1).replaceAll('\r', '')
  const body = lit.slice(1, -1)
  if (!body.includes('\\')) return body
  let out = ''
  let bytes: number[] | undefined
  let i = 0
  while (i < body.length) {
    const { value, isByte, next } = unquoteChar(body, i, q)
    i = next
    if (isByte && value >= 0x80) {
      bytes ??= []
      bytes.push(value)
      continue
    }
    if (bytes !== undefined) {
      out += decoder.decode(new Uint8Array(bytes))
      bytes = undefined
    }
    out += String.fromCodePoint(value)
  }
  if (bytes !== undefined) out += decoder.decode(new Uint8Array(bytes))
  return out
}

// Go integer literal syntax for strconv.ParseInt(s, 0, 64): base prefixes,
// a leading 0 for octal, and underscores only between digits.
const reDec = /^(?:0|[1-9](?:_?[0-9])*)$/
const reOctLegacy = /^0(?:_?[0-7])+$/
const reHex = /^0[xX](?:_?[0-9a-fA-F])+$/
const reOct = /^0[oO](?:_?[0-7])+$/
const reBin = /^0[bB](?:_?[01])+$/

/** The unsigned value of an integer literal without sign, or undefined if malformed. */
export function parseUintLiteral(s: string): bigint | undefined {
  if (reDec.test(s)) return BigInt(s.replaceAll('_', ''))
  if (reHex.test(s)) return BigInt('0x' + s.slice(2).replaceAll('_', ''))
  if (reOct.test(s)) return BigInt('0o' + s.slice(2).replaceAll('_', ''))
  if (reBin.test(s)) return BigInt('0b' + s.slice(2).replaceAll('_', ''))
  if (reOctLegacy.test(s)) return BigInt('0o' + s.slice(1).replaceAll('_', ''))
  return undefined
}

const maxUint64 = (1n << 64n) - 1n
const maxInt64 = (1n << 63n) - 1n
const minInt64 = -(1n << 63n)

/** strconv.ParseUint(s, 0, 64). */
export function parseUint64(s: string): bigint | undefined {
  const v = parseUintLiteral(s)
  return v !== undefined && v <= maxUint64 ? v : undefined
}

/** strconv.ParseInt(s, 0, 64). */
export function parseInt64(s: string): bigint | undefined {
  let neg = false
  let body = s
  if (s.startsWith('+') || s.startsWith('-')) {
    neg = s.startsWith('-')
    body = s.slice(1)
  }
  const v = parseUintLiteral(body)
  if (v === undefined) return undefined
  const r = neg ? -v : v
  return r >= minInt64 && r <= maxInt64 ? r : undefined
}

const reDecFloat = /^[+-]?(?=\.?[0-9])(?:[0-9](?:_?[0-9])*)?(?:\.(?:[0-9](?:_?[0-9])*)?)?(?:[eE][+-]?[0-9](?:_?[0-9])*)?$/
const reHexFloat = /^([+-]?)0[xX]((?:_?[0-9a-fA-F])*)(?:\.([0-9a-fA-F](?:_?[0-9a-fA-F])*)?)?[pP]([+-]?[0-9](?:_?[0-9])*)$/

/**
 * strconv.ParseFloat(s, 64) for the literal forms the lexer produces; undefined
 * on bad syntax or overflow (Go returns an error for both).
 */
export function parseFloat64(s: string): number | undefined {
  if (reDecFloat.test(s)) {
    const v = Number(s.replaceAll('_', ''))
    return Number.isFinite(v) ? v : undefined
  }
  const m = reHexFloat.exec(s)
  if (m === null) return undefined
  const intPart = (m[2] ?? '').replaceAll('_', '')
  const frac = (m[3] ?? '').replaceAll('_', '')
  if (intPart === '' && frac === '') return undefined
  const mant = BigInt('0x' + (intPart + frac || '0'))
  const exp = Number((m[4] ?? '0').replaceAll('_', '')) - 4 * frac.length
  const v = bigTimesPow2(mant, exp)
  if (!Number.isFinite(v)) return undefined
  return m[1] === '-' ? -v : v
}

/** mant * 2^exp rounded once to the nearest double. */
function bigTimesPow2(mant: bigint, exp: number): number {
  if (mant === 0n) return 0
  // Keep 64 significant bits plus a sticky bit so the final conversion rounds once.
  const bits = mant.toString(2).length
  if (bits > 64) {
    const drop = bits - 64
    const sticky = mant & ((1n << BigInt(drop)) - 1n) ? 1n : 0n
    mant = (mant >> BigInt(drop)) | sticky
    exp += drop
  }
  let v = Number(mant)
  // Scale in steps that stay exact for normal results.
  while (exp > 0) {
    const s = Math.min(exp, 1000)
    v *= 2 ** s
    exp -= s
  }
  while (exp < 0) {
    const s = Math.min(-exp, 1000)
    v /= 2 ** s
    exp += s
  }
  return v
}

// ---- float formatting -------------------------------------------------------

interface Decimal {
  /** Significant digits without trailing zeros; '' for zero. */
  digits: string
  /** Decimal point position: value = 0.digits × 10^dp. */
  dp: number
}

const f64 = new DataView(new ArrayBuffer(8))

/** x = mant × 2^exp for finite x ≥ 0, mant including the implicit bit. */
function decompose(x: number): { mant: bigint; exp: number } {
  f64.setFloat64(0, x)
  const hi = f64.getUint32(0)
  const lo = f64.getUint32(4)
  const bexp = (hi >>> 20) & 0x7ff
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo)
  if (bexp === 0) return { mant, exp: -1074 }
  mant |= 1n << 52n
  return { mant, exp: bexp - 1075 }
}

function trimZeros(d: Decimal): Decimal {
  let n = d.digits.length
  while (n > 0 && d.digits.charCodeAt(n - 1) === 0x30) n--
  return n === d.digits.length ? d : { digits: d.digits.slice(0, n), dp: n === 0 ? 0 : d.dp }
}

/** The exact decimal expansion of a finite x > 0. */
function exactDecimal(x: number): Decimal {
  const { mant, exp } = decompose(x)
  if (exp >= 0) {
    const s = (mant << BigInt(exp)).toString()
    return trimZeros({ digits: s, dp: s.length })
  }
  const s = (mant * 5n ** BigInt(-exp)).toString()
  return trimZeros({ digits: s, dp: s.length + exp })
}

/** The shortest digits that read back as x (x > 0), as Go's %v and 'g' with precision -1. */
function shortestDecimal(x: number): Decimal {
  const s = x.toExponential()
  const e = s.indexOf('e')
  const digits = s.slice(0, e).replace('.', '')
  return trimZeros({ digits, dp: Number(s.slice(e + 1)) + 1 })
}

/** Rounds to nd significant digits, ties to even (Go's decimal.Round). */
function roundDecimal(d: Decimal, nd: number): Decimal {
  const { digits } = d
  if (nd < 0 || nd >= digits.length) return d
  const next = digits.charCodeAt(nd)
  let up: boolean
  if (next === 0x35 && nd + 1 === digits.length) up = nd > 0 && (digits.charCodeAt(nd - 1) - 0x30) % 2 === 1
  else up = next >= 0x35
  if (!up) return trimZeros({ digits: digits.slice(0, nd), dp: d.dp })
  let i = nd - 1
  while (i >= 0 && digits.charCodeAt(i) === 0x39) i--
  if (i < 0) return { digits: '1', dp: d.dp + 1 }
  return trimZeros({ digits: digits.slice(0, i) + String.fromCharCode(digits.charCodeAt(i) + 1), dp: d.dp })
}

function fmtE(d: Decimal, prec: number, e: string): string {
  const nd = d.digits.length
  let s = nd === 0 ? '0' : (d.digits[0] ?? '0')
  if (prec > 0) {
    s += '.'
    const frac = d.digits.slice(1, Math.min(nd, prec + 1))
    s += frac + '0'.repeat(prec - frac.length)
  }
  const exp = nd === 0 ? 0 : d.dp - 1
  const a = Math.abs(exp)
  return s + e + (exp < 0 ? '-' : '+') + (a < 10 ? '0' : '') + String(a)
}

function fmtF(d: Decimal, prec: number): string {
  const nd = d.digits.length
  let s: string
  if (d.dp > 0) {
    const m = Math.min(nd, d.dp)
    s = d.digits.slice(0, m) + '0'.repeat(d.dp - m)
  } else s = '0'
  if (prec > 0) {
    s += '.'
    for (let i = 0; i < prec; i++) {
      const j = d.dp + i
      s += j >= 0 && j < nd ? d.digits[j] : '0'
    }
  }
  return s
}

function fmtB(x: number): string {
  if (x === 0) return '0p-1074'
  const { mant, exp } = decompose(x)
  return `${mant}p${exp >= 0 ? '+' : '-'}${Math.abs(exp)}`
}

function fmtX(x: number, prec: number, upper: boolean): string {
  let mant = 0n
  let exp = 0
  if (x !== 0) {
    const d = decompose(x)
    mant = d.mant
    exp = d.exp
    while (mant < 1n << 52n) {
      mant <<= 1n
      exp--
    }
    // Leading 1 at bit 60: value = mant / 2^60 × 2^exp.
    mant <<= 8n
    exp += 52
  }
  const mask60 = (1n << 60n) - 1n
  if (prec >= 0 && prec < 15) {
    const shift = BigInt(prec * 4)
    const extra = mant & ((1n << (60n - shift)) - 1n)
    mant >>= 60n - shift
    const half = 1n << (59n - shift)
    if ((extra | (mant & 1n)) > half) mant++
    mant <<= 60n - shift
    if (mant & (1n << 61n)) {
      mant >>= 1n
      exp++
    }
  }
  const digits = upper ? '0123456789ABCDEF' : lowerHex
  let s = (upper ? '0X' : '0x') + digits[Number(mant >> 60n)]
  mant &= mask60
  if (prec < 0 && mant !== 0n) {
    s += '.'
    while (mant !== 0n) {
      s += digits[Number((mant >> 56n) & 15n)]
      mant = (mant << 4n) & mask60
    }
  } else if (prec > 0) {
    s += '.'
    for (let i = 0; i < prec; i++) {
      s += digits[Number((mant >> 56n) & 15n)]
      mant = (mant << 4n) & mask60
    }
  }
  const a = Math.abs(exp)
  return s + (upper ? 'P' : 'p') + (exp < 0 ? '-' : '+') + (a < 10 ? '0' : '') + String(a)
}

export type FloatFormat = 'e' | 'E' | 'f' | 'g' | 'G' | 'x' | 'X' | 'b'

/** strconv.FormatFloat(v, fmt, prec, 64); prec < 0 means the shortest exact representation. */
export function formatFloat(v: number, fmt: FloatFormat, prec: number): string {
  if (Number.isNaN(v)) return 'NaN'
  if (v === Infinity) return '+Inf'
  if (v === -Infinity) return '-Inf'
  const neg = v < 0 || Object.is(v, -0)
  const sign = neg ? '-' : ''
  const x = Math.abs(v)
  if (fmt === 'b') return sign + fmtB(x)
  if (fmt === 'x' || fmt === 'X') return sign + fmtX(x, prec, fmt === 'X')
  const shortest = prec < 0
  let d: Decimal
  if (x === 0) d = { digits: '', dp: 0 }
  else if (shortest) d = shortestDecimal(x)
  else {
    d = exactDecimal(x)
    if (fmt === 'e' || fmt === 'E') d = roundDecimal(d, prec + 1)
    else if (fmt === 'f') d = roundDecimal(d, d.dp + prec)
    else {
      if (prec === 0) prec = 1
      d = roundDecimal(d, prec)
    }
  }
  const nd = d.digits.length
  if (shortest) {
    if (fmt === 'e' || fmt === 'E') prec = Math.max(nd - 1, 0)
    else if (fmt === 'f') prec = Math.max(nd - d.dp, 0)
    else prec = nd
  }
  if (fmt === 'e' || fmt === 'E') return sign + fmtE(d, prec, fmt)
  if (fmt === 'f') return sign + fmtF(d, prec)
  // %g: exponent form when the exponent is < -4 or >= the precision
  // (6 when the precision is the shortest representation).
  let eprec = prec
  if (eprec > nd && nd >= d.dp) eprec = nd
  if (shortest) eprec = 6
  const exp = d.dp - 1
  if (exp < -4 || exp >= eprec) {
    if (prec > nd) prec = nd
    return sign + fmtE(d, prec - 1, fmt === 'g' ? 'e' : 'E')
  }
  if (prec > d.dp) prec = nd
  return sign + fmtF(d, Math.max(prec - d.dp, 0))
}

/** Go's %v of a float64 (strconv 'g' with the shortest precision). */
export function formatFloatV(v: number): string {
  return formatFloat(v, 'g', -1)
}
