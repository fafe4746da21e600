// Sprig's string functions. Several of them work on bytes in Go (trunc,
// substr, abbrev, nospace, initials, wrap), which shows with non-ASCII text,
// so those go through UTF-8 here as well.

import { newMap, setKey } from '../value.ts'
import type { FuncMap, GoValue } from '../value.ts'
import { formatV, quoteGo } from './gofmt.ts'
import { fail, fn, int, sliceBoundsPanic, str } from './spec.ts'
import { bytesOf, tagType } from './types.ts'
import { isDigit, isLetter, isLower, isNumber, isPunct, isSpace, isTitle, isUpper, mapRunes, toLower, toTitle, toUpper } from './unicode.ts'
import { byteLength, fromUtf8, isAscii, runes, sliceBytes, utf8 } from './utf8.ts'
import { randomString } from './random.ts'

const decoder = new TextDecoder()

/** Sprig's strval: strings and []byte as they are, everything else through fmt's %v (Stringers included). */
export function strval(v: GoValue): string {
  if (typeof v === 'string') return v
  const bytes = bytesOf(v)
  return bytes !== undefined ? decoder.decode(bytes) : formatV(v)
}

/** Sprig's strslice: a list becomes its non-nil elements as strings; nil becomes an empty list. */
export function strslice(v: GoValue): string[] {
  if (Array.isArray(v)) return (v as readonly GoValue[]).filter((e) => e !== null && e !== undefined).map(strval)
  if (v === null || v === undefined) return []
  return [strval(v)]
}

export function trimSpace(s: string): string {
  const rs = runes(s)
  let a = 0
  let b = rs.length
  while (a < b && isSpace(rs[a] ?? 0)) a++
  while (b > a && isSpace(rs[b - 1] ?? 0)) b--
  return a === 0 && b === rs.length ? s : String.fromCodePoint(...rs.slice(a, b))
}

/** strings.Trim: drops leading and trailing runes found in cutset. */
export function trimCutset(s: string, cutset: string): string {
  if (s === '' || cutset === '') return s
  const set = new Set(runes(cutset))
  const rs = runes(s)
  let a = 0
  let b = rs.length
  while (a < b && set.has(rs[a] ?? -1)) a++
  while (b > a && set.has(rs[b - 1] ?? -1)) b--
  return String.fromCodePoint(...rs.slice(a, b))
}

export const toUpperString = (s: string): string => (isAscii(s) ? s.toUpperCase() : mapRunes(s, toUpper))
export const toLowerString = (s: string): string => (isAscii(s) ? s.toLowerCase() : mapRunes(s, toLower))

// strings.Title's word boundary.
function isSeparator(r: number): boolean {
  if (r <= 0x7f) {
    if ((r >= 0x30 && r <= 0x39) || (r >= 0x61 && r <= 0x7a) || (r >= 0x41 && r <= 0x5a) || r === 0x5f) return false
    return true
  }
  if (isLetter(r) || isDigit(r)) return false
  return isSpace(r)
}

function title(s: string): string {
  let prev = 0x20
  return mapRunes(s, (r) => {
    const out = isSeparator(prev) ? toTitle(r) : r
    prev = r
    return out
  })
}

function untitle(s: string): string {
  let next = true
  return mapRunes(s, (r) => {
    if (isSpace(r)) {
      next = true
      return r
    }
    if (next) {
      next = false
      return toLower(r)
    }
    return r
  })
}

function swapcase(s: string): string {
  let whitespace = true
  return mapRunes(s, (r) => {
    if (isUpper(r) || isTitle(r)) {
      whitespace = false
      return toLower(r)
    }
    if (isLower(r)) {
      if (whitespace) {
        whitespace = false
        return toTitle(r)
      }
      return toUpper(r)
    }
    whitespace = isSpace(r)
    return r
  })
}

// goutils reads these strings byte by byte and writes each byte back as a
// rune, which re-encodes every non-ASCII byte; 0x85 and 0xA0 count as spaces.
function byteAsRuneSpace(b: number): boolean {
  return b === 0x20 || (b >= 0x09 && b <= 0x0d) || b === 0x85 || b === 0xa0
}

function nospace(s: string): string {
  if (s === '') return s
  const b = utf8(s)
  let out = ''
  let kept = 0
  for (const c of b) {
    if (!byteAsRuneSpace(c)) {
      out += String.fromCharCode(c)
      kept++
    }
  }
  return kept === b.length ? s : out
}

function initials(s: string): string {
  if (s === '') return s
  let out = ''
  let gap = true
  for (const c of utf8(s)) {
    if (byteAsRuneSpace(c)) gap = true
    else if (gap) {
      out += String.fromCharCode(c)
      gap = false
    }
  }
  return out
}

// Far above the engine's output limit, but low enough that a huge count
// fails before it allocates gigabytes (Go would try).
export const MAX_BUILT_STRING = 256 * 1024 * 1024

function repeat(count: number, s: string): string {
  if (count < 0) fail('strings: negative Repeat count')
  if (s.length * count > MAX_BUILT_STRING)
    fail(`strings: Repeat output of ${s.length * count} characters exceeds the limit of ${MAX_BUILT_STRING}`)
  return s.repeat(count)
}

function indent(n: number, s: string): string {
  const pad = repeat(n, ' ')
  return pad + s.replaceAll('\n', '\n' + pad)
}

function substr(start: number, end: number, s: string): string {
  const n = byteLength(s)
  if (start < 0) {
    if (end < 0 || end > n) sliceBoundsPanic(undefined, end, n)
    return sliceBytes(s, 0, end)
  }
  if (end < 0 || end > n) {
    if (start > n) sliceBoundsPanic(start, undefined, n)
    return sliceBytes(s, start)
  }
  if (start > end) sliceBoundsPanic(start, end, n)
  return sliceBytes(s, start, end)
}

function trunc(c: number, s: string): string {
  const n = byteLength(s)
  if (c < 0 && n + c > 0) return sliceBytes(s, n + c)
  if (c >= 0 && n > c) return sliceBytes(s, 0, c)
  return s
}

// goutils.AbbreviateFull, on bytes; undefined stands for its error return.
// The recursion works on the byte slice, which may start inside a character.
function abbreviateBytes(b: Uint8Array, offset: number, maxWidth: number): Uint8Array | undefined {
  if (b.length === 0) return b
  if (maxWidth < 4) return undefined
  const n = b.length
  if (n <= maxWidth) return b
  if (offset > n) offset = n
  if (n - offset < maxWidth - 3) offset = n - (maxWidth - 3)
  const marker = Uint8Array.of(0x2e, 0x2e, 0x2e)
  const join = (...parts: Uint8Array[]): Uint8Array => {
    const out = new Uint8Array(parts.reduce((x, p) => x + p.length, 0))
    let o = 0
    for (const p of parts) {
      out.set(p, o)
      o += p.length
    }
    return out
  }
  if (offset <= 4) return join(b.subarray(0, maxWidth - 3), marker)
  if (maxWidth < 7) return undefined
  if (offset + maxWidth - 3 < n) return join(marker, abbreviateBytes(b.subarray(offset), 0, maxWidth - 3) ?? new Uint8Array())
  return join(marker, b.subarray(n - (maxWidth - 3)))
}

function abbreviateFull(s: string, offset: number, maxWidth: number): string | undefined {
  const r = abbreviateBytes(utf8(s), offset, maxWidth)
  return r === undefined ? undefined : fromUtf8(r)
}

function replaceAll(src: string, old: string, repl: string): string {
  if (old === '') {
    // Go inserts the replacement before every rune and at the end.
    let out = repl
    for (const c of src) out += c + repl
    return out
  }
  return src.split(old).join(repl)
}

/** strings.SplitN (n < 0: all); an empty separator splits into runes. */
export function splitN(s: string, sep: string, n: number): string[] {
  if (n === 0) return []
  if (sep === '') {
    const rs = Array.from(s)
    if (n < 0 || n > rs.length) return rs
    return [...rs.slice(0, n - 1), rs.slice(n - 1).join('')]
  }
  const parts = s.split(sep)
  if (n < 0 || parts.length <= n) return parts
  return [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)]
}

function indexMap(parts: readonly string[]): GoValue {
  const m = newMap()
  for (const [i, p] of parts.entries()) setKey(m, '_' + String(i), p)
  return tagType(m, 'map[string]string')
}

// goutils.WrapCustom, on bytes.
function wrapCustom(s: string, wrapLength: number, newLine: string, wrapLongWords: boolean): string {
  if (s === '') return ''
  if (newLine === '') newLine = '\n'
  if (wrapLength < 1) wrapLength = 1
  const b = utf8(s)
  const nl = utf8(newLine)
  const n = b.length
  const out: number[] = []
  const push = (from: number, to: number): void => {
    for (let i = from; i < to; i++) out.push(b[i] ?? 0)
  }
  const pushNl = (): void => {
    for (const c of nl) out.push(c)
  }
  let offset = 0
  while (n - offset > wrapLength) {
    if (b[offset] === 0x20) {
      offset++
      continue
    }
    const end = wrapLength + offset + 1
    let spaceAt = -1
    for (let i = end - 1; i >= offset; i--) {
      if (b[i] === 0x20) {
        spaceAt = i
        break
      }
    }
    if (spaceAt >= offset) {
      push(offset, spaceAt)
      pushNl()
      offset = spaceAt + 1
    } else if (wrapLongWords) {
      push(offset, wrapLength + offset)
      pushNl()
      offset += wrapLength
    } else {
      const from = wrapLength + offset
      let idx = -1
      for (let i = from; i < n; i++) {
        if (b[i] === 0x20) {
          idx = i
          break
        }
      }
      if (idx === -1) {
        push(offset, n)
        offset = n
      } else {
        push(offset, idx)
        pushNl()
        offset = idx + 1
      }
    }
  }
  push(offset, n)
  return fromUtf8(Uint8Array.from(out))
}

// xstrings (v1.5.0) word splitting for snakecase/kebabcase and its camel case
// conversion, on runes. U+FFFD is what Go decodes as utf8.RuneError.
const RUNE_ERROR = 0xfffd
const isConnector = (r: number): boolean => r === 0x2d || r === 0x5f || isSpace(r)

function isAlphabet(r: number): boolean {
  if (!isLetter(r)) return false
  if (r < 0x3400) return true
  if (r >= 0x4e00 && r <= 0x9fcc) return false
  if (r >= 0x3400 && r <= 0x4d85) return false
  if (r >= 0x20000 && r <= 0x2b81d) return false
  return true
}

function toCamelCase(s: string, big: boolean): string {
  const rs = runes(s)
  if (rs.length === 0) return ''
  const out: number[] = []
  let i = 0
  let firstUpper = false
  let r0 = 0
  let decoded = false
  while (i < rs.length) {
    r0 = rs[i++] ?? 0
    decoded = true
    if (!isConnector(r0)) {
      firstUpper = isUpper(r0)
      r0 = big ? toUpper(r0) : toLower(r0)
      break
    }
    out.push(r0)
  }
  if (i >= rs.length) {
    if (decoded) out.push(r0)
    return String.fromCodePoint(...out)
  }
  while (i < rs.length) {
    const r1 = r0
    r0 = rs[i++] ?? 0
    if (isConnector(r0) && isConnector(r1)) {
      out.push(r1)
      continue
    }
    if (isConnector(r1)) {
      firstUpper = isUpper(r0)
      r0 = toUpper(r0)
    } else {
      if (firstUpper) {
        if (isUpper(r0)) r0 = toLower(r0)
        else firstUpper = false
      }
      out.push(r1)
    }
  }
  if (firstUpper && !big) r0 = toLower(r0)
  out.push(r0)
  return String.fromCodePoint(...out)
}

const W_INVALID = 0
const W_NUMBER = 1
const W_UPPER = 2
const W_ALPHA = 3
const W_CONNECTOR = 4
const W_PUNCT = 5
const W_OTHER = 6

interface Word {
  wt: number
  start: number
  end: number
  rem: number
}

function nextValidRune(rs: readonly number[], pos: number, prev: number): { r: number; size: number } {
  let size = 0
  while (pos < rs.length) {
    const r = rs[pos] ?? RUNE_ERROR
    size++
    if (r !== RUNE_ERROR) return { r, size }
    pos++
  }
  return { r: prev, size }
}

function nextWord(rs: readonly number[], start: number): Word {
  const n = rs.length
  if (start >= n) return { wt: W_INVALID, start, end: start, rem: start }
  let offset = 0
  let rem = start
  let { r, size } = nextValidRune(rs, rem, RUNE_ERROR)
  offset += size
  if (r === RUNE_ERROR) return { wt: W_INVALID, start, end: start + offset, rem: start + offset }
  let wt: number
  const scan = (keep: (x: number) => boolean): void => {
    while (rem < n) {
      ;({ r, size } = nextValidRune(rs, rem, r))
      if (!keep(r)) break
      offset += size
      rem += size
    }
  }
  if (isConnector(r)) {
    wt = W_CONNECTOR
    rem += size
    scan(isConnector)
  } else if (isPunct(r)) {
    wt = W_PUNCT
    rem += size
    scan(isPunct)
  } else if (isUpper(r)) {
    wt = W_UPPER
    rem += size
    if (rem < n) {
      ;({ r, size } = nextValidRune(rs, rem, r))
      if (isUpper(r)) {
        let prevSize = size
        offset += size
        rem += size
        while (rem < n) {
          ;({ r, size } = nextValidRune(rs, rem, r))
          if (!isUpper(r)) break
          prevSize = size
          offset += size
          rem += size
        }
        // "HTTPStatus" splits into "HTTP" and "Status".
        if (rem < n && isAlphabet(r)) {
          offset -= prevSize
          rem = start + offset
        }
      } else if (isAlphabet(r)) {
        offset += size
        rem += size
        scan((x) => isAlphabet(x) && !isUpper(x))
      }
    }
  } else if (isAlphabet(r)) {
    wt = W_ALPHA
    rem += size
    scan((x) => isAlphabet(x) && !isUpper(x))
  } else if (isNumber(r)) {
    wt = W_NUMBER
    rem += size
    scan(isNumber)
  } else {
    wt = W_OTHER
    rem += size
    scan((x) => !(isConnector(x) || isAlphabet(x) || isNumber(x) || isPunct(x)))
  }
  return { wt, start, end: start + offset, rem }
}

function camelCaseToLowerCase(s: string, connector: number): string {
  const rs = runes(s)
  if (rs.length === 0) return ''
  const out: number[] = []
  const lower = (w: Word): void => {
    for (let i = w.start; i < w.end; i++) {
      const r = rs[i] ?? 0
      if (w.wt !== W_UPPER && w.wt !== W_CONNECTOR) out.push(r)
      else if (isConnector(r)) out.push(connector)
      else if (isUpper(r)) out.push(toLower(r))
      else out.push(r)
    }
  }
  let w = nextWord(rs, 0)
  while (w.rem < rs.length) {
    if (w.wt !== W_CONNECTOR) lower(w)
    const prev = w
    w = nextWord(rs, w.rem)
    switch (prev.wt) {
      case W_NUMBER:
        while (w.wt === W_ALPHA || w.wt === W_NUMBER) {
          lower(w)
          w = nextWord(rs, w.rem)
        }
        if (w.wt !== W_INVALID && w.wt !== W_PUNCT && w.wt !== W_CONNECTOR) out.push(connector)
        break
      case W_CONNECTOR:
        lower(prev)
        break
      case W_PUNCT:
        break
      default: {
        if (w.wt !== W_NUMBER) {
          if (w.wt !== W_CONNECTOR && w.wt !== W_PUNCT) out.push(connector)
          break
        }
        if (w.rem >= rs.length) break
        const last = w
        w = nextWord(rs, w.rem)
        if (w.wt !== W_ALPHA) {
          lower({ ...last, wt: W_NUMBER })
          if (w.wt !== W_CONNECTOR && w.wt !== W_PUNCT) out.push(connector)
          break
        }
        // Lower case letters after a number: "HTTP2xx" becomes "http_2xx".
        out.push(connector)
        lower({ ...last, wt: W_NUMBER })
        while (w.wt === W_ALPHA || w.wt === W_NUMBER) {
          lower(w)
          w = nextWord(rs, w.rem)
        }
        if (w.wt !== W_INVALID && w.wt !== W_CONNECTOR && w.wt !== W_PUNCT) out.push(connector)
      }
    }
  }
  lower(w)
  return String.fromCodePoint(...out)
}

function shuffle(s: string): string {
  if (s === '') return s
  const rs = runes(s)
  for (let i = rs.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    const t = rs[i] ?? 0
    rs[i] = rs[j] ?? 0
    rs[j] = t
  }
  return String.fromCodePoint(...rs)
}

export const stringFuncs: FuncMap = {
  hello: fn([], () => 'Hello!'),
  trim: fn(['string'], (s) => trimSpace(str(s))),
  trimAll: fn(['string', 'string'], (a, b) => trimCutset(str(b), str(a))),
  // Deprecated spelling kept by Sprig.
  trimall: fn(['string', 'string'], (a, b) => trimCutset(str(b), str(a))),
  trimPrefix: fn(['string', 'string'], (a, b) => {
    const p = str(a)
    const s = str(b)
    return s.startsWith(p) ? s.slice(p.length) : s
  }),
  trimSuffix: fn(['string', 'string'], (a, b) => {
    const p = str(a)
    const s = str(b)
    return p !== '' && s.endsWith(p) ? s.slice(0, s.length - p.length) : s
  }),
  upper: fn(['string'], (s) => toUpperString(str(s))),
  lower: fn(['string'], (s) => toLowerString(str(s))),
  title: fn(['string'], (s) => title(str(s))),
  untitle: fn(['string'], (s) => untitle(str(s))),
  swapcase: fn(['string'], (s) => swapcase(str(s))),
  repeat: fn(['int', 'string'], (n, s) => repeat(int(n), str(s))),
  substr: fn(['int', 'int', 'string'], (a, b, s) => substr(int(a), int(b), str(s))),
  trunc: fn(['int', 'string'], (c, s) => trunc(int(c), str(s))),
  abbrev: fn(['int', 'string'], (w, s) => {
    const width = int(w)
    return width < 4 ? str(s) : (abbreviateFull(str(s), 0, width) ?? '')
  }),
  abbrevboth: fn(['int', 'int', 'string'], (l, r, s) => {
    const left = int(l)
    const right = int(r)
    if (right < 4 || (left > 0 && right < 7)) return str(s)
    return abbreviateFull(str(s), left, right) ?? ''
  }),
  contains: fn(['string', 'string'], (sub, s) => str(s).includes(str(sub))),
  hasPrefix: fn(['string', 'string'], (p, s) => str(s).startsWith(str(p))),
  hasSuffix: fn(['string', 'string'], (p, s) => str(s).endsWith(str(p))),
  replace: fn(['string', 'string', 'string'], (o, n, s) => replaceAll(str(s), str(o), str(n))),
  split: fn(['string', 'string'], (sep, s) => indexMap(splitN(str(s), str(sep), -1))),
  splitList: fn(['string', 'string'], (sep, s) => tagType(splitN(str(s), str(sep), -1), '[]string')),
  splitn: fn(['string', 'int', 'string'], (sep, n, s) => indexMap(splitN(str(s), str(sep), int(n)))),
  join: fn(['string', 'any'], (sep, v) => strslice(v).join(str(sep))),
  toStrings: fn(['any'], (v) => tagType(strslice(v), '[]string')),
  quote: fn(
    [],
    (...args) =>
      args.length === 1 && typeof args[0] === 'string'
        ? quoteGo(args[0])
        : args
            .filter((a) => a !== null && a !== undefined)
            .map((a) => quoteGo(strval(a)))
            .join(' '),
    'any',
  ),
  squote: fn(
    [],
    (...args) =>
      args
        .filter((a) => a !== null && a !== undefined)
        .map((a) => `'${formatV(a)}'`)
        .join(' '),
    'any',
  ),
  cat: fn(
    [],
    (...args) =>
      args
        .filter((a) => a !== null && a !== undefined)
        .map(formatV)
        .join(' '),
    'any',
  ),
  indent: fn(['int', 'string'], (n, s) => indent(int(n), str(s))),
  nindent: fn(['int', 'string'], (n, s) => '\n' + indent(int(n), str(s))),
  nospace: fn(['string'], (s) => nospace(str(s))),
  initials: fn(['string'], (s) => initials(str(s))),
  plural: fn(['string', 'string', 'int'], (one, many, n) => (int(n) === 1 ? str(one) : str(many))),
  snakecase: fn(['string'], (s) => camelCaseToLowerCase(str(s), 0x5f)),
  kebabcase: fn(['string'], (s) => camelCaseToLowerCase(str(s), 0x2d)),
  // Sprig maps camelcase to xstrings' upper camel case (PascalCase).
  camelcase: fn(['string'], (s) => toCamelCase(str(s), true)),
  wrap: fn(['int', 'string'], (l, s) => wrapCustom(str(s), int(l), '', false)),
  wrapWith: fn(['int', 'string', 'string'], (l, sep, s) => wrapCustom(str(s), int(l), str(sep), true)),
  shuffle: fn(['string'], (s) => shuffle(str(s))),
  randAlphaNum: fn(['int'], (n) => randomString(int(n), 'alnum')),
  randAlpha: fn(['int'], (n) => randomString(int(n), 'alpha')),
  randAscii: fn(['int'], (n) => randomString(int(n), 'ascii')),
  randNumeric: fn(['int'], (n) => randomString(int(n), 'numeric')),
}
