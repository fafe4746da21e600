// The escaping built-ins html, js and urlquery, byte for byte as Go's
// template.HTMLEscapeString, template.JSEscapeString and url.QueryEscape.

import { isPrint } from './sprig/unicode.ts'

export function htmlEscape(s: string): string {
  if (!/["'&<>\0]/.test(s)) return s
  let out = ''
  for (const c of s) {
    switch (c) {
      case '"':
        out += '&#34;'
        break
      case "'":
        out += '&#39;'
        break
      case '&':
        out += '&amp;'
        break
      case '<':
        out += '&lt;'
        break
      case '>':
        out += '&gt;'
        break
      case '\0':
        out += '\uFFFD'
        break
      default:
        out += c
    }
  }
  return out
}

const upperHex = '0123456789ABCDEF'

export function jsEscape(s: string): string {
  let out = ''
  for (const c of s) {
    const r = c.codePointAt(0) ?? 0
    if (r < 0x80) {
      switch (c) {
        case '\\':
          out += '\\\\'
          continue
        case "'":
          out += "\\'"
          continue
        case '"':
          out += '\\"'
          continue
        case '<':
          out += '\\u003C'
          continue
        case '>':
          out += '\\u003E'
          continue
        case '&':
          out += '\\u0026'
          continue
        case '=':
          out += '\\u003D'
          continue
      }
      if (r < 0x20) out += '\\u00' + upperHex[r >> 4] + upperHex[r & 15]
      else out += c
      continue
    }
    // Lone surrogates stand for invalid bytes, which Go decodes as U+FFFD.
    const rr = r >= 0xd800 && r <= 0xdfff ? 0xfffd : r
    out += isPrint(rr) ? String.fromCodePoint(rr) : '\\u' + rr.toString(16).toUpperCase().padStart(4, '0')
  }
  return out
}

const encoder = new TextEncoder()

/** url.QueryEscape: unreserved bytes kept, space as '+', the rest %XX. */
export function queryEscape(s: string): string {
  if (/^[A-Za-z0-9\-_.~]*$/.test(s)) return s
  let out = ''
  for (const b of encoder.encode(s)) {
    const c = String.fromCharCode(b)
    if (
      (b >= 0x30 && b <= 0x39) ||
      (b >= 0x41 && b <= 0x5a) ||
      (b >= 0x61 && b <= 0x7a) ||
      c === '-' ||
      c === '_' ||
      c === '.' ||
      c === '~'
    ) {
      out += c
    } else if (b === 0x20) out += '+'
    else out += '%' + upperHex[b >> 4] + upperHex[b & 15]
  }
  return out
}
