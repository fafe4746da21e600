// Parser for ignoreFields entries. The grammar is small and hand-written so
// that a key containing dots or slashes is never split apart and nothing in an
// entry is ever evaluated:
//
//   entry   := first step*
//   first   := bare | bracket
//   step    := '.' bare | bracket
//   bare    := [A-Za-z0-9_-]+                       a map key
//   bracket := '[' ( '*' | index | quoted ) ']'
//   index   := '0' | [1-9][0-9]*                    one array element
//   quoted  := "'" chars "'" | '"' chars '"'        a map key, any characters;
//                                                   backslash escapes \\ \' \"

import { FieldPathError } from './errors.ts'
import { indexSegment, keySegment, WILDCARD, type Segment } from './types.ts'

/** Largest valid JavaScript array index. */
const MAX_INDEX = 4_294_967_294

const QUOTE_HINT = `other keys must be quoted, e.g. ['example.com/owner']`

export function parseFieldPath(entry: string): Segment[] {
  return parseEntry(entry, undefined)
}

/** Like parseFieldPath; `index` (the entry's place in its list) is recorded on errors. */
export function parseEntry(entry: string, index: number | undefined): Segment[] {
  const fail = (position: number, detail: string): FieldPathError => new FieldPathError(entry, position, detail, index)
  if (typeof entry !== 'string') {
    throw new FieldPathError(String(entry), 0, `an entry must be a string, got ${typeof entry}`, index)
  }
  if (entry.length === 0) throw fail(0, 'the entry is empty')

  const segments: Segment[] = []
  let i = entry[0] === '[' ? readBracket(entry, 0, segments, fail) : readBare(entry, 0, segments, fail)
  while (i < entry.length) {
    const c = entry[i] as string
    if (c === '.') {
      i = readBare(entry, i + 1, segments, fail)
    } else if (c === '[') {
      i = readBracket(entry, i, segments, fail)
    } else if (entry[i - 1] === ']') {
      throw fail(i, describe(c, 'expected "." or "[" after "]"'))
    } else {
      throw fail(i, describe(c, `a key without quotes may only hold letters, digits, "-" and "_"; ${QUOTE_HINT}`))
    }
  }
  return segments
}

type Fail = (position: number, detail: string) => FieldPathError

function readBare(entry: string, start: number, out: Segment[], fail: Fail): number {
  let i = start
  while (i < entry.length && isBareChar(entry.charCodeAt(i))) i++
  if (i > start) {
    out.push(keySegment(entry.slice(start, i)))
    return i
  }
  const c = entry[start]
  if (c === undefined) throw fail(start, 'the entry ends with "."; expected a key after it')
  if (c === '.') throw fail(start, start === 0 ? 'the entry starts with "."' : 'empty segment between two dots')
  if (c === '[') throw fail(start, 'expected a key between "." and "["; write a[0] or a[\'k\'], not a.[0]')
  throw fail(start, describe(c, `a key without quotes may only hold letters, digits, "-" and "_"; ${QUOTE_HINT}`))
}

function readBracket(entry: string, open: number, out: Segment[], fail: Fail): number {
  const unclosed = (): FieldPathError => fail(entry.length, `"[" at position ${open} is not closed`)
  let i = open + 1
  const c = entry[i]
  if (c === undefined) throw unclosed()
  if (c === '*') {
    out.push(WILDCARD)
    i++
  } else if (isDigit(c)) {
    const start = i
    while (i < entry.length && isDigit(entry[i] as string)) i++
    if (c === '0' && i - start > 1) throw fail(start, 'an index must not have leading zeros')
    const value = Number(entry.slice(start, i))
    if (value > MAX_INDEX) throw fail(start, `an index must be at most ${MAX_INDEX}`)
    out.push(indexSegment(value))
  } else if (c === "'" || c === '"') {
    i = readQuoted(entry, i, out, fail)
  } else if (c === '-') {
    throw fail(i, 'an index must not be negative')
  } else if (c === ']') {
    throw fail(i, 'empty brackets; expected an index, "*" or a quoted key')
  } else {
    throw fail(i, describe(c, 'expected an index (a non-negative whole number), "*" or a quoted key after "["'))
  }
  const close = entry[i]
  if (close === ']') return i + 1
  if (close === undefined) throw unclosed()
  if (isDigit(c) && (close === '.' || /[A-Za-z_]/.test(close))) {
    throw fail(i, describe(close, 'an index must be a non-negative whole number'))
  }
  throw fail(i, describe(close, `expected "]" to close "[" at position ${open}`))
}

function readQuoted(entry: string, open: number, out: Segment[], fail: Fail): number {
  const quote = entry[open]
  let key = ''
  let chunk = open + 1
  for (let i = chunk; i < entry.length; i++) {
    const c = entry[i]
    if (c === quote) {
      out.push(keySegment(key + entry.slice(chunk, i)))
      return i + 1
    }
    if (c === '\\') {
      const next = entry[i + 1]
      if (next !== '\\' && next !== "'" && next !== '"') {
        throw fail(
          i,
          next === undefined
            ? 'the entry ends with a backslash inside a quoted key'
            : `unknown escape "\\${next}" inside a quoted key; only \\\\, \\' and \\" are allowed`,
        )
      }
      key += entry.slice(chunk, i) + next
      i++
      chunk = i + 1
    }
  }
  throw fail(entry.length, `the quoted key opened at position ${open} is not closed`)
}

function describe(c: string, expectation: string): string {
  if (/\s/.test(c)) return `whitespace is not allowed outside quotes`
  if (c === ']') return `"]" has no matching "["`
  return `unexpected character ${JSON.stringify(c)}; ${expectation}`
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9'
}

function isBareChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) || // a-z
    (code >= 65 && code <= 90) || // A-Z
    (code >= 48 && code <= 57) || // 0-9
    code === 45 || // -
    code === 95 // _
  )
}

/** True when a key can be written without quotes. */
export function isBareKey(key: string): boolean {
  if (key.length === 0) return false
  for (let i = 0; i < key.length; i++) if (!isBareChar(key.charCodeAt(i))) return false
  return true
}
