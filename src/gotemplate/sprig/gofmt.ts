// The parts of Go's fmt and strconv that Sprig output depends on: %v of any
// value (strval, cat, squote, toString), %q of a string (quote), and float
// formatting.

import type { GoValue } from '../value.ts'
import { formatValue } from '../fmt.ts'
import { isPrint } from './unicode.ts'

/** Shortest decimal digits d1d2...dn and the point position: value = 0.d1d2...dn × 10^dp. */
export function shortestDigits(n: number): { digits: string; dp: number } {
  const [mant = '0', exp = '0'] = Math.abs(n).toExponential().split('e')
  return { digits: mant.replace('.', ''), dp: Number(exp) + 1 }
}

function fmtE(neg: boolean, digits: string, dp: number, prec: number, e: string): string {
  let out = neg ? '-' : ''
  const ds = digits.padEnd(prec + 1, '0')
  out += ds[0] ?? '0'
  if (prec > 0) out += '.' + ds.slice(1, prec + 1)
  const exp = digits === '0' ? 0 : dp - 1
  const ae = Math.abs(exp)
  return out + e + (exp < 0 ? '-' : '+') + (ae < 10 ? '0' : '') + String(ae)
}

function fmtF(neg: boolean, digits: string, dp: number, prec: number): string {
  let out = neg ? '-' : ''
  if (dp > 0) {
    out += digits.slice(0, dp).padEnd(dp, '0')
  } else out += '0'
  if (prec > 0) {
    out += '.'
    for (let i = 0; i < prec; i++) {
      const j = dp + i
      out += j < 0 || j >= digits.length ? '0' : digits[j]
    }
  }
  return out
}

/** strconv.FormatFloat(f, 'g', -1, 64), which is also fmt's %v. */
export function formatFloatG(n: number): string {
  if (Number.isNaN(n)) return 'NaN'
  if (n === Infinity) return '+Inf'
  if (n === -Infinity) return '-Inf'
  const neg = n < 0 || Object.is(n, -0)
  if (n === 0) return neg ? '-0' : '0'
  const { digits, dp } = shortestDigits(n)
  const exp = dp - 1
  if (exp < -4 || exp >= 6) return fmtE(neg, digits, dp, digits.length - 1, 'e')
  return fmtF(neg, digits, dp, Math.max(digits.length - dp, 0))
}

/** strconv.FormatFloat(f, 'f', -1, 64). */
export function formatFloatF(n: number): string {
  if (n === 0) return Object.is(n, -0) ? '-0' : '0'
  const { digits, dp } = shortestDigits(n)
  return fmtF(n < 0, digits, dp, Math.max(digits.length - dp, 0))
}

/** encoding/json's float64 encoding (ES number formatting, apart from -0). */
export function formatFloatJSON(n: number): string {
  if (Object.is(n, -0)) return '-0'
  return String(n)
}

/** fmt's %v. */
export function formatV(v: GoValue): string {
  return typeof v === 'string' ? v : formatValue(v ?? null)
}

const hex = '0123456789abcdef'

/** strconv.Quote, which is fmt's %q of a string. */
// Printable ASCII other than " and \: strconv.Quote adds only the quotes.
const plainASCII = /^[ !#-[\]-~]*$/

export function quoteGo(s: string): string {
  if (plainASCII.test(s)) return '"' + s + '"'
  let out = '"'
  for (const c of s) {
    let r = c.codePointAt(0) ?? 0xfffd
    // A lone surrogate cannot come from valid UTF-8; Go would see U+FFFD.
    if (r >= 0xd800 && r <= 0xdfff) r = 0xfffd
    if (r === 0x22 || r === 0x5c) {
      out += '\\' + c
      continue
    }
    if (isPrint(r)) {
      out += String.fromCodePoint(r)
      continue
    }
    switch (r) {
      case 7:
        out += '\\a'
        continue
      case 8:
        out += '\\b'
        continue
      case 12:
        out += '\\f'
        continue
      case 10:
        out += '\\n'
        continue
      case 13:
        out += '\\r'
        continue
      case 9:
        out += '\\t'
        continue
      case 11:
        out += '\\v'
        continue
    }
    if (r < 0x20 || r === 0x7f) out += '\\x' + hex[r >> 4] + hex[r & 15]
    else if (r < 0x10000) out += '\\u' + r.toString(16).padStart(4, '0')
    else out += '\\U' + r.toString(16).padStart(8, '0')
  }
  return out + '"'
}
