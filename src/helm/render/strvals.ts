// Helm's --set syntax (pkg/strvals), read into a values map as `helm
// template --set/--set-string/--set-file` reads it:
//
//   name=value,outer.inner=value,list[0]=value,list[1].name=value,tags={a,b}
//
// Dots nest maps, [i] indexes a list (gaps are null), {a,b} is a list, `\`
// takes the next character as it is. --set types each value (true, false,
// null, integers as int64), --set-string keeps strings, --set-file reads each
// value as a file path. Helm's quirks are kept: `a=` is "", `{}` is [""],
// and an index or key without `=` at the end of the line sets nothing.

import { int64 } from '../../gotemplate/index.ts'
import { quote, quoteRune } from '../../gotemplate/strconv.ts'
import { isTable, type JsonMap, setKey } from './data.ts'

/** How a value's text becomes a value: typed (--set), kept (--set-string) or read from the file it names (--set-file). */
export type SetMode = 'typed' | 'string' | { readonly readFile: (path: string) => string }

export class SetValuesError extends Error {
  override readonly name = 'SetValuesError'
  readonly code = 'SetValues'
}

// Helm's bounds: a list index and the number of dots in one name.
const MAX_INDEX = 65536
const MAX_NESTING = 30

/** Reads one --set line into dest (changed in place). Throws SetValuesError with Helm's wording. */
export function parseSetLine(line: string, dest: JsonMap, mode: SetMode): void {
  const p = new SetParser(line, mode)
  while (p.key(dest, 0) === 'more') {
    // one name=value pair per round
  }
}

type Step = 'more' | 'end'

/** Go's %T of a value read from values files or --set, for the type-assertion messages. */
function goType(v: unknown): string {
  if (v === null || v === undefined) return 'nil'
  if (typeof v === 'number') return 'float64'
  if (typeof v === 'boolean') return 'bool'
  if (typeof v === 'string') return 'string'
  if (Array.isArray(v)) return '[]interface {}'
  if (isTable(v)) return 'map[string]interface {}'
  return 'int64'
}

// Helm recovers the panic of a failed type assertion into this message.
const assertionFailed = (v: unknown, want: string) =>
  new SetValuesError(`unable to parse key: interface conversion: interface {} is ${goType(v)}, not ${want}`)

function asList(v: unknown): unknown[] {
  if (!Array.isArray(v)) throw assertionFailed(v, '[]interface {}')
  return v
}

function asMap(v: unknown): JsonMap {
  if (!isTable(v)) throw assertionFailed(v, 'map[string]interface {}')
  return v
}

/** An empty key sets nothing, as in Helm. */
function set(m: JsonMap, key: string, value: unknown): void {
  if (key !== '') setKey(m, key, value)
}

function setIndex(list: unknown[], index: number, value: unknown): unknown[] {
  if (index < 0) throw new SetValuesError(`negative ${index} index not allowed`)
  if (index > MAX_INDEX) throw new SetValuesError(`index of ${index} is greater than maximum supported index of ${MAX_INDEX}`)
  while (list.length <= index) list.push(null)
  list[index] = value
  return list
}

/** strings.EqualFold against a lower-case ASCII word: ASCII case, plus the two non-ASCII letters that fold to ASCII. */
function foldEquals(text: string, word: string): boolean {
  const folded = Array.from(text, (c) => (c === '\u017f' ? 's' : c === '\u212a' ? 'k' : c.charCodeAt(0) < 128 ? c.toLowerCase() : c))
  return folded.join('') === word
}

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

/** --set's typing of a value: booleans and null by name (any case), decimal integers without a leading zero as int64. */
export function typedValue(text: string): unknown {
  if (foldEquals(text, 'true')) return true
  if (foldEquals(text, 'false')) return false
  if (foldEquals(text, 'null')) return null
  if (text === '0') return int64(0n)
  if (text !== '' && !text.startsWith('0') && /^[+-]?[0-9]+$/.test(text)) {
    const n = BigInt(text)
    if (n >= INT64_MIN && n <= INT64_MAX) return int64(n)
  }
  return text
}

class SetParser {
  readonly #chars: string[]
  #pos = 0
  readonly #mode: SetMode

  constructor(line: string, mode: SetMode) {
    this.#chars = Array.from(line)
    this.#mode = mode
  }

  /** The text up to the first stop character (consumed); `\` takes the next character. stop is undefined at the end. */
  #until(stops: string): { text: string; stop: string | undefined } {
    let text = ''
    while (this.#pos < this.#chars.length) {
      const c = this.#chars[this.#pos++] as string
      if (stops.includes(c)) return { text, stop: c }
      if (c === '\\') {
        if (this.#pos >= this.#chars.length) break
        text += this.#chars[this.#pos++]
      } else text += c
    }
    return { text, stop: undefined }
  }

  #value(text: string): unknown {
    const mode = this.#mode
    if (mode === 'typed') return typedValue(text)
    if (mode === 'string') return text
    return mode.readFile(text)
  }

  /** strconv.Atoi of what is between [ and ]. */
  #index(): number {
    const { text, stop } = this.#until(']')
    if (stop === undefined) throw new SetValuesError('error parsing index: EOF')
    if (!/^[+-]?[0-9]+$/.test(text)) throw new SetValuesError(`error parsing index: strconv.Atoi: parsing ${quote(text)}: invalid syntax`)
    const n = BigInt(text)
    if (n < INT64_MIN || n > INT64_MAX) {
      throw new SetValuesError(`error parsing index: strconv.Atoi: parsing ${quote(text)}: value out of range`)
    }
    // Beyond MAX_INDEX is refused before any use; the exact number only matters for the message.
    return Number(n)
  }

  /** A {a,b} list after `=`; 'end' at the end of the line, 'scalar' when the value is not a list. */
  #list(): unknown[] | 'end' | 'scalar' {
    if (this.#pos >= this.#chars.length) return 'end'
    if (this.#chars[this.#pos] !== '{') return 'scalar'
    this.#pos++
    const list: unknown[] = []
    for (;;) {
      const { text, stop } = this.#until(',}')
      if (stop === undefined) throw new SetValuesError("list must terminate with '}'")
      list.push(this.#value(text))
      if (stop === '}') {
        if (this.#chars[this.#pos] === ',') this.#pos++
        return list
      }
    }
  }

  key(data: JsonMap, nesting: number): Step {
    const { text: k, stop } = this.#until('=[,.')
    switch (stop) {
      case undefined:
        if (k === '') return 'end'
        throw new SetValuesError(`key ${quote(k)} has no value`)
      case '[': {
        const i = this.#index()
        const list = Object.hasOwn(data, k) ? asList(data[k]) : []
        const r = this.#listItem(list, i, nesting)
        set(data, k, r.list)
        return r.step
      }
      case '=': {
        const list = this.#list()
        if (list === 'end') {
          set(data, k, '')
          return 'end'
        }
        set(data, k, list === 'scalar' ? this.#value(this.#until(',').text) : list)
        return 'more'
      }
      case ',':
        throw new SetValuesError(`key ${quote(k)} has no value (cannot end with ,)`)
      default: {
        if (nesting + 1 > MAX_NESTING) {
          throw new SetValuesError(`value name nested level is greater than maximum supported nested level of ${MAX_NESTING}`)
        }
        const inner = Object.hasOwn(data, k) ? asMap(data[k]) : {}
        const step = this.key(inner, nesting + 1)
        const filled = Object.keys(inner).length > 0
        if (step === 'more' && !filled) throw new SetValuesError(`key map ${quote(k)} has no value`)
        if (filled) set(data, k, inner)
        return step
      }
    }
  }

  #listItem(list: unknown[], i: number, nesting: number): { list: unknown[]; step: Step } {
    if (i < 0) throw new SetValuesError(`negative ${i} index not allowed`)
    const { text, stop } = this.#until('[.=')
    if (text !== '') {
      // Go prints the rune slice with %q: each character quoted.
      const runes = Array.from(text, (c) => quoteRune(c.codePointAt(0) as number)).join(' ')
      throw new SetValuesError(`unexpected data at end of array index: [${runes}]`)
    }
    switch (stop) {
      case undefined:
        return { list, step: 'end' }
      case '=': {
        const value = this.#list()
        if (value === 'end') return { list: setIndex(list, i, ''), step: 'more' }
        return { list: setIndex(list, i, value === 'scalar' ? this.#value(this.#until(',').text) : value), step: 'more' }
      }
      case '[': {
        const next = this.#index()
        const existing = list.length > i && list[i] !== null ? asList(list[i]) : []
        const r = this.#listItem(existing, next, nesting)
        // Helm leaves the outer list alone when the nested index had no value.
        if (r.step === 'end') return { list, step: 'end' }
        return { list: setIndex(list, i, r.list), step: 'more' }
      }
      default: {
        let inner: JsonMap = {}
        if (list.length > i) {
          // An entry that is not a map (indices given out of order) is replaced by one.
          if (!isTable(list[i])) list[i] = {}
          inner = list[i] as JsonMap
        }
        const step = this.key(inner, nesting)
        if (step === 'end') return { list, step }
        return { list: setIndex(list, i, inner), step }
      }
    }
  }
}
