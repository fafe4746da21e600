// encoding/json as Sprig's toJson/toPrettyJson/toRawJson/fromJson see it:
// map keys sorted by bytes, <, > and & escaped unless raw, U+2028/U+2029
// always escaped, floats in ES form, nil slices as null, and decoding that
// yields float64 for every number.

import { GoInt, GoObject, GoTime, isMap, newMap, setKey } from '../value.ts'
import type { GoValue } from '../value.ts'
import { methodOf } from '../methods.ts'
import { formatFloatG, formatFloatJSON, quoteGo } from './gofmt.ts'
import { timeJSON } from './gotime.ts'
import { bytesOf, isNilSlice } from './types.ts'
import { compareGoStrings } from './utf8.ts'

export class JSONError extends Error {}

const hex = '0123456789abcdef'

export function jsonString(s: string, escapeHTML: boolean): string {
  let out = '"'
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) {
      switch (c) {
        case 0x22:
          out += '\\"'
          continue
        case 0x5c:
          out += '\\\\'
          continue
        case 0x08:
          out += '\\b'
          continue
        case 0x0c:
          out += '\\f'
          continue
        case 0x0a:
          out += '\\n'
          continue
        case 0x0d:
          out += '\\r'
          continue
        case 0x09:
          out += '\\t'
          continue
      }
      if (c < 0x20 || (escapeHTML && (c === 0x3c || c === 0x3e || c === 0x26))) {
        out += '\\u00' + hex[c >> 4] + hex[c & 15]
        continue
      }
      out += s[i]
      continue
    }
    if (c === 0x2028 || c === 0x2029) {
      out += '\\u202' + hex[c & 15]
      continue
    }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      out += s.slice(i, i + 2)
      i++
      continue
    }
    // A lone surrogate stands for bytes Go would see as invalid UTF-8.
    out += c >= 0xd800 && c <= 0xdfff ? '\\ufffd' : s[i]
  }
  return out + '"'
}

interface EncodeOptions {
  readonly escapeHTML: boolean
  readonly indent: string
}

/** json.Marshal / MarshalIndent / Encoder.Encode; throws JSONError for NaN and ±Inf. */
export function encodeJSON(v: GoValue, opts: EncodeOptions): string {
  const nl = (depth: number): string => (opts.indent === '' ? '' : '\n' + opts.indent.repeat(depth))
  const colon = opts.indent === '' ? ':' : ': '
  const enc = (x: GoValue, depth: number): string => {
    if (x === null || x === undefined) return 'null'
    switch (typeof x) {
      case 'string':
        return jsonString(x, opts.escapeHTML)
      case 'bigint':
        return x.toString()
      case 'boolean':
        return x ? 'true' : 'false'
      case 'number':
        if (!Number.isFinite(x)) throw new JSONError('json: unsupported value: ' + formatFloatG(x))
        return formatFloatJSON(x)
    }
    if (x instanceof GoInt) return x.value.toString()
    if (x instanceof GoTime) return jsonString(timeJSON(x), opts.escapeHTML)
    if (x instanceof GoObject) return encodeObject(x, (f) => enc(f, depth), opts.escapeHTML)
    if (Array.isArray(x)) {
      if (isNilSlice(x)) return 'null'
      const bytes = bytesOf(x)
      if (bytes !== undefined) return '"' + Buffer.from(bytes).toString('base64') + '"'
      if (x.length === 0) return '[]'
      const items = (x as readonly GoValue[]).map((e) => nl(depth + 1) + enc(e, depth + 1))
      return '[' + items.join(',') + nl(depth) + ']'
    }
    if (isMap(x)) {
      const keys = Object.keys(x).sort(compareGoStrings)
      if (keys.length === 0) return '{}'
      const items = keys.map((k) => nl(depth + 1) + jsonString(k, opts.escapeHTML) + colon + enc(x[k], depth + 1))
      return '{' + items.join(',') + nl(depth) + '}'
    }
    return 'null'
  }
  return enc(v, 0)
}

const decoder = new TextDecoder()

/** A struct or pointer: its MarshalJSON text, else its MarshalText as a string, else its jsonValue(). */
function encodeObject(x: GoObject, enc: (v: GoValue) => string, escapeHTML: boolean): string {
  const call = (name: string): string | undefined => {
    const m = methodOf(x, name)
    if (m === undefined || m.params.length !== 0 || m.unsupported !== undefined) return undefined
    const b = bytesOf(m.fn())
    return b === undefined ? undefined : decoder.decode(b)
  }
  const raw = call('MarshalJSON')
  if (raw !== undefined) return escapeHTML ? raw.replace(/[<>&]/g, (c) => '\\u00' + c.charCodeAt(0).toString(16)) : raw
  const text = call('MarshalText')
  if (text !== undefined) return jsonString(text, escapeHTML)
  const fields = x.jsonFields()
  if (fields !== undefined) {
    if (fields.length === 0) return '{}'
    return '{' + fields.map(([k, v]) => jsonString(k, escapeHTML) + ':' + enc(v)).join(',') + '}'
  }
  return enc(x.jsonValue())
}

function fixString(s: string): string {
  // Go decodes an escaped lone surrogate to U+FFFD.
  return s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
}

function toGo(x: unknown): GoValue {
  if (x === null) return null
  switch (typeof x) {
    case 'string':
      return fixString(x)
    case 'number':
      if (!Number.isFinite(x)) throw new JSONError('json: cannot unmarshal number into Go value of type float64')
      // Go keeps -0 from "-0"; JSON.parse does too.
      return x
    case 'boolean':
      return x
  }
  if (Array.isArray(x)) return x.map(toGo)
  const m = newMap()
  for (const [k, v] of Object.entries(x as Record<string, unknown>)) setKey(m, fixString(k), toGo(v))
  return m
}

// encoding/json's quoteChar: the offending byte as a quoted character.
function quoteChar(s: string, i: number): string {
  const c = s.charCodeAt(i)
  if (c === 0x27) return "'\\''"
  if (c === 0x22) return `'"'`
  // The scanner reads bytes: a non-ASCII character shows as its first UTF-8 byte.
  const b = c < 0x80 ? c : (new TextEncoder().encode(String.fromCodePoint(s.codePointAt(i) ?? 0xfffd))[0] ?? 0)
  const q = quoteGo(String.fromCharCode(b))
  return "'" + q.slice(1, -1) + "'"
}

/** The first syntax error as encoding/json's scanner words it, or undefined for valid JSON. */
export function jsonSyntaxError(s: string): string | undefined {
  let i = 0
  const EOF = 'unexpected end of JSON input'
  class Stop extends Error {}
  let msg = ''
  const stop = (m: string): never => {
    msg = m
    throw new Stop()
  }
  const bad = (what: string): never => stop(`invalid character ${quoteChar(s, i)} ${what}`)
  // At the end of input Go's scanner is fed a space: inside a number,
  // literal or escape that space is the invalid character.
  const endIn = (what: string): void => {
    if (i >= s.length) stop(`invalid character ' ' ${what}`)
  }
  const ws = (): void => {
    while (i < s.length && ' \t\r\n'.includes(s[i] ?? '')) i++
  }
  const digits = (): void => {
    while (i < s.length && (s[i] ?? '') >= '0' && (s[i] ?? '') <= '9') i++
  }
  const str = (): void => {
    i++ // opening quote
    for (;;) {
      if (i >= s.length) stop(EOF)
      const c = s.charCodeAt(i)
      if (c === 0x22) {
        i++
        return
      }
      if (c < 0x20) bad('in string literal')
      if (c === 0x5c) {
        i++
        endIn('in string escape code')
        const e = s[i] ?? ''
        if (e === 'u') {
          for (let k = 0; k < 4; k++) {
            i++
            endIn('in \\u hexadecimal character escape')
            if (!/[0-9a-fA-F]/.test(s[i] ?? '')) bad('in \\u hexadecimal character escape')
          }
        } else if (!'"\\/bfnrt'.includes(e)) bad('in string escape code')
      }
      i++
    }
  }
  const num = (): void => {
    if (s[i] === '-') {
      i++
      endIn('in numeric literal')
      if (!/[0-9]/.test(s[i] ?? '')) bad('in numeric literal')
    }
    if (s[i] === '0') i++
    else digits()
    if (s[i] === '.') {
      i++
      endIn('after decimal point in numeric literal')
      if (!/[0-9]/.test(s[i] ?? '')) bad('after decimal point in numeric literal')
      digits()
    }
    if (s[i] === 'e' || s[i] === 'E') {
      i++
      if (s[i] === '+' || s[i] === '-') i++
      endIn('in exponent of numeric literal')
      if (!/[0-9]/.test(s[i] ?? '')) bad('in exponent of numeric literal')
      digits()
    }
  }
  const lit = (word: string): void => {
    for (let k = 1; k < word.length; k++) {
      i++
      endIn(`in literal ${word} (expecting ${quoteChar(word, k)})`)
      if (s[i] !== word[k]) bad(`in literal ${word} (expecting ${quoteChar(word, k)})`)
    }
    i++
  }
  const value = (): void => {
    ws()
    if (i >= s.length) stop(EOF)
    const c = s[i] ?? ''
    if (c === '{') {
      i++
      ws()
      if (s[i] === '}') {
        i++
        return
      }
      for (;;) {
        if (i >= s.length) stop(EOF)
        if (s[i] !== '"') bad('looking for beginning of object key string')
        str()
        ws()
        if (i >= s.length) stop(EOF)
        if (s[i] !== ':') bad('after object key')
        i++
        value()
        ws()
        if (i >= s.length) stop(EOF)
        if (s[i] === '}') {
          i++
          return
        }
        if (s[i] !== ',') bad('after object key:value pair')
        i++
        ws()
      }
    }
    if (c === '[') {
      i++
      ws()
      if (s[i] === ']') {
        i++
        return
      }
      for (;;) {
        value()
        ws()
        if (i >= s.length) stop(EOF)
        if (s[i] === ']') {
          i++
          return
        }
        if (s[i] !== ',') bad('after array element')
        i++
      }
    }
    if (c === '"') return str()
    if (c === '-' || (c >= '0' && c <= '9')) return num()
    if (c === 't') return lit('true')
    if (c === 'f') return lit('false')
    if (c === 'n') return lit('null')
    bad('looking for beginning of value')
  }
  try {
    value()
    ws()
    if (i < s.length) bad('after top-level value')
  } catch (e) {
    if (e instanceof Stop) return msg
    throw e
  }
  return undefined
}

/** json.Unmarshal into interface{}. */
export function decodeJSON(text: string): GoValue {
  const syntax = jsonSyntaxError(text)
  if (syntax !== undefined) throw new JSONError(syntax)
  return toGo(JSON.parse(text) as unknown)
}
