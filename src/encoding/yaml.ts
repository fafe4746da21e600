// Decoding the rendered YAML stream the way Go Kubernetes tooling does
// (k8s.io/apimachinery's YAML reader to split documents, sigs.k8s.io/yaml
// over go-yaml v2 to decode each), so a Template renders the same objects
// here as under the Go operator, kubectl or Helm. That is YAML 1.1 plain
// scalar resolution, not YAML 1.2:
//
//   yes/no/on/off/y/n (any of Go's spellings) -> booleans
//   0644 -> 420 (leading-zero octal), 0o644, 0b101, 0x1F, 1_000 -> integers
//   1e3 -> 1000; timestamps stay strings; !!binary -> decoded string
//   unknown local tags (!foo x) -> the plain string; duplicate keys: last wins
//   a line inside a flow collection or quoted scalar at any column (`]` back
//   at its key's indentation), as libyaml checks indentation in block context only
//
// js-yaml does the parsing; only the scalar resolution and key handling are
// replaced through its tag API. The client library's loadAllYaml is not used:
// it re-types known kinds through its generated models, which drops fields
// it does not know (a typo in a Deployment would vanish instead of being
// rejected by the API server) and fails on empty documents.

import {
  defineMappingTag,
  defineScalarTag,
  defineSequenceTag,
  FAILSAFE_SCHEMA,
  loadAll,
  mergeTag,
  NOT_RESOLVED,
  Schema,
  YAMLException,
} from 'js-yaml'
import { formatGoFloat, isGoFloat } from './gostrconv.ts'

export type Resolved =
  | { readonly tag: 'null'; readonly value: null }
  | { readonly tag: 'bool'; readonly value: boolean }
  | { readonly tag: 'int' | 'float'; readonly value: number }
  | { readonly tag: 'str'; readonly value: string }

const WORDS: ReadonlyMap<string, Resolved> = new Map<string, Resolved>([
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'].map((w): [string, Resolved] => [
    w,
    { tag: 'bool', value: true },
  ]),
  ...['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'].map((w): [string, Resolved] => [
    w,
    { tag: 'bool', value: false },
  ]),
  ...['', '~', 'null', 'Null', 'NULL'].map((w): [string, Resolved] => [w, { tag: 'null', value: null }]),
  ...['.nan', '.NaN', '.NAN'].map((w): [string, Resolved] => [w, { tag: 'float', value: NaN }]),
  ...['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'].map((w): [string, Resolved] => [w, { tag: 'float', value: Infinity }]),
  ...['-.inf', '-.Inf', '-.INF'].map((w): [string, Resolved] => [w, { tag: 'float', value: -Infinity }]),
])

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const UINT64_MAX = 2n ** 64n - 1n

/** go-yaml v2's resolve() for an untagged plain scalar. */
export function resolveGoYamlScalar(source: string): Resolved {
  const word = WORDS.get(source)
  if (word !== undefined) return word
  const first = source.charAt(0)
  if (first === '.') {
    return isGoFloat(source) ? { tag: 'float', value: Number(source.replaceAll('_', '')) } : str(source)
  }
  if (first !== '+' && first !== '-' && !(first >= '0' && first <= '9')) return str(source)
  // Go removes every underscore before trying the number parsers.
  const plain = source.replaceAll('_', '')
  const int = parseGoInt(plain)
  // ParseInt (signed, int64) first, then ParseUint (no sign, uint64).
  if (int !== undefined && (int.signed ? int.value >= INT64_MIN && int.value <= INT64_MAX : int.value <= UINT64_MAX)) {
    return { tag: 'int', value: Number(int.value) }
  }
  if (YAML_STYLE_FLOAT.test(plain) && isGoFloat(plain)) return { tag: 'float', value: Number(plain) }
  return str(source)
}

function str(value: string): Resolved {
  return { tag: 'str', value }
}

/** strconv.ParseInt(s, 0, 64) / ParseUint(s, 0, 64) syntax, without the range check. */
function parseGoInt(s: string): { readonly value: bigint; readonly signed: boolean } | undefined {
  const signed = s.startsWith('+') || s.startsWith('-')
  const body = signed ? s.slice(1) : s
  let digits = body
  let pattern = /^[0-9]+$/
  let prefix = ''
  if (/^0[xX]/.test(body)) {
    digits = body.slice(2)
    pattern = /^[0-9a-fA-F]+$/
    prefix = '0x'
  } else if (/^0[oO]/.test(body)) {
    digits = body.slice(2)
    pattern = /^[0-7]+$/
    prefix = '0o'
  } else if (/^0[bB]/.test(body)) {
    digits = body.slice(2)
    pattern = /^[01]+$/
    prefix = '0b'
  } else if (body.length > 1 && body.startsWith('0')) {
    // A leading zero means octal, as in Go source.
    digits = body.slice(1)
    pattern = /^[0-7]+$/
    prefix = '0o'
  }
  if (!pattern.test(digits)) return undefined
  const magnitude = BigInt(`${prefix}${digits}`)
  return { value: s.startsWith('-') ? -magnitude : magnitude, signed }
}

/**
 * One YAML 1.1 core tag. Its resolver accepts exactly what Go resolves to
 * that tag, so the tags never compete and their order does not matter.
 */
function goScalarTag(name: string, want: Resolved['tag'], firstChars: readonly string[]) {
  return defineScalarTag(`tag:yaml.org,2002:${name}`, {
    implicit: true,
    implicitFirstChars: firstChars,
    resolve: (source: string, isExplicit: boolean) => {
      const r = resolveGoYamlScalar(source)
      if (r.tag === want) return r.value
      // Go reads an integer under an explicit !!float as that number.
      if (isExplicit && want === 'float' && r.tag === 'int') return r.value
      return NOT_RESOLVED
    },
    identify: () => false,
  })
}

const DIGITS = [...'0123456789']
const goNull = goScalarTag('null', 'null', ['', '~', 'n', 'N'])
const goBool = goScalarTag('bool', 'bool', [...'yYnNtTfFoO'])
const goInt = goScalarTag('int', 'int', ['+', '-', ...DIGITS])
const goFloat = goScalarTag('float', 'float', ['+', '-', '.', ...DIGITS])

/** Go keeps a timestamp's text when decoding into interface{}. */
const goTimestamp = defineScalarTag('tag:yaml.org,2002:timestamp', {
  resolve: (source: string) => source,
  identify: () => false,
})

/** Go decodes !!binary (newlines ignored) into a string of the bytes. */
const goBinary = defineScalarTag('tag:yaml.org,2002:binary', {
  resolve: (source: string) => {
    const b64 = source.replace(/[\r\n]/g, '')
    if (b64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) return NOT_RESOLVED
    return Buffer.from(b64, 'base64').toString('utf8')
  },
  identify: () => false,
})

// go-yaml v2 ignores tags it does not know: the node decodes as if untagged,
// except that a scalar keeps its text.
const localScalar = defineScalarTag('!', {
  matchByTagPrefix: true,
  resolve: (source: string) => source,
  identify: () => false,
})
const localSequence = defineSequenceTag('!', {
  matchByTagPrefix: true,
  create: (): unknown[] => [],
  addItem: (list: unknown[], item: unknown) => {
    list.push(item)
  },
  identify: () => false,
})

class YamlKeyError extends Error {}

/** sigs.k8s.io/yaml's conversion of a decoded map key to a JSON key; null and composite keys are errors. */
function jsonKey(key: unknown): string {
  if (typeof key === 'string') return key
  if (typeof key === 'boolean') return key ? 'true' : 'false'
  if (typeof key === 'number') {
    if (Number.isNaN(key)) return '.nan'
    if (key === Infinity) return '.inf'
    if (key === -Infinity) return '-.inf'
    return Number.isSafeInteger(key) ? String(key) : formatGoFloat(key)
  }
  throw new YamlKeyError(`unsupported map key ${key === null ? 'null' : typeof key === 'object' ? 'of a list or map' : String(key)}`)
}

type JsonMap = Record<string, unknown>

function goMapTag(tagName: string, matchByTagPrefix: boolean) {
  return defineMappingTag(tagName, {
    matchByTagPrefix,
    create: (): JsonMap => ({}),
    addPair: (map: JsonMap, key: unknown, value: unknown): string => {
      let k: string
      try {
        k = jsonKey(key)
      } catch (err) {
        return err instanceof YamlKeyError ? err.message : String(err)
      }
      // defineProperty: a "__proto__" key is data, and a repeated key replaces the earlier one.
      Object.defineProperty(map, k, { value, enumerable: true, writable: true, configurable: true })
      return ''
    },
    has: (map: JsonMap, key: unknown) => {
      try {
        return Object.hasOwn(map, jsonKey(key))
      } catch {
        return false
      }
    },
    keys: (map: JsonMap) => Object.keys(map),
    get: (map: JsonMap, key: unknown) => {
      try {
        const k = jsonKey(key)
        return Object.hasOwn(map, k) ? map[k] : null
      } catch {
        return null
      }
    },
    identify: () => false,
  })
}

const GO_YAML_SCHEMA = new Schema([
  ...FAILSAFE_SCHEMA.tags,
  goMapTag('tag:yaml.org,2002:map', false),
  goMapTag('!', true),
  localSequence,
  localScalar,
  goNull,
  goBool,
  goInt,
  goFloat,
  goTimestamp,
  goBinary,
  mergeTag,
])

export class YamlDocumentError extends Error {
  override readonly name = 'YamlDocumentError'
  readonly code = 'RENDERED_YAML_INVALID'
  /** 1-based number of the document among the non-empty documents of the stream. */
  readonly document: number
  constructor(document: number, detail: string) {
    super(`rendered document ${document}: ${detail}`)
    this.document = document
  }
}

export interface YamlDocument {
  /** 1-based number among the non-empty documents: what a reader counts as "the second manifest". */
  readonly document: number
  /** 1-based line of the rendered output where the document starts. */
  readonly line: number
  /** The decoded value; JSON data only (finite numbers, no Date or binary objects). */
  readonly value: unknown
}

/** Nodes one render may expand to; aliases can multiply a short text without bound. */
const MAX_NODES = 1_000_000
const MAX_DEPTH = 500

/**
 * Splits a rendered stream on `---` lines (a comment may follow the marker,
 * anything else is an error, as in Kubernetes' reader) and decodes each
 * document. Empty and comment-only documents are left out. Throws
 * YamlDocumentError naming the document and the line.
 */
export function parseYamlStream(text: string): YamlDocument[] {
  const out: YamlDocument[] = []
  const budget = { nodes: 0 }
  for (const chunk of splitDocuments(text)) {
    const document = out.length + 1
    if (chunk.error !== undefined) throw new YamlDocumentError(document, chunk.error)
    let values: unknown[]
    try {
      values = loadGoYaml(chunk.text)
    } catch (err) {
      if (err instanceof YAMLException) throw new YamlDocumentError(document, yamlMessage(err, chunk.firstLine))
      throw err
    }
    const present = values.filter((v) => v !== null && v !== undefined)
    if (present.length > 1) {
      throw new YamlDocumentError(document, `line ${chunk.firstLine}: holds more than one YAML document (a "..." end marker?)`)
    }
    if (present.length === 0) continue
    out.push({ document, line: chunk.firstLine, value: toJson(present[0], document, budget) })
  }
  return out
}

/** Characters re-read while indenting continuation lines (loadGoYaml), beyond which the first error stands. */
const MAX_REREAD_CHARS = 64 * 1024 * 1024

/**
 * loadAll, accepting what go-yaml accepts inside a flow collection or a quoted
 * scalar: a continuation line at any indentation (libyaml checks indentation
 * only in block context), such as a `]` back at its key's column. js-yaml
 * rejects such a line as "deficient indentation"; it is indented to the length
 * of the line before it (which reaches past the opening bracket or quote, so
 * past the indentation js-yaml wants) and the text read again. Leading space
 * on such a line is never content, so the values do not change.
 */
function loadGoYaml(text: string): unknown[] {
  let current = text
  let reread = 0
  let lastFixed = -1
  for (;;) {
    try {
      return loadAll(current, { schema: GO_YAML_SCHEMA, json: true, maxDepth: MAX_DEPTH })
    } catch (err) {
      const line = err instanceof YAMLException && err.reason === 'deficient indentation' ? err.mark?.line : undefined
      reread += current.length
      // The same line failing again means the guess was not the cause; let the error stand.
      if (typeof line !== 'number' || line === lastFixed || reread > MAX_REREAD_CHARS) throw err
      const fixed = indentContinuation(current, line)
      if (fixed === undefined) throw err
      current = fixed
      lastFixed = line
    }
  }
}

/** The text with 0-based line `at` indented to the length of the nearest line above that holds content. */
function indentContinuation(text: string, at: number): string | undefined {
  const lines = text.split('\n')
  const target = lines[at]
  // A document marker at column 0 ends a flow collection in go-yaml too (an error there).
  if (target === undefined || target.trim() === '' || /^(---|\.\.\.)(\s|$)/.test(target)) return undefined
  let width = 0
  for (let i = at - 1; i >= 0 && width === 0; i--) {
    const above = (lines[i] as string).trimEnd()
    if (above.trim() !== '' && !above.trimStart().startsWith('#')) width = above.length
  }
  // js-yaml counts spaces only; a tab in the indentation stays after the added spaces.
  const indent = (/^ */.exec(target)?.[0] ?? '').length
  if (width <= indent) return undefined
  lines[at] = ' '.repeat(width - indent) + target
  return lines.join('\n')
}

interface Chunk {
  readonly text: string
  /** 1-based line of the stream where the chunk starts. */
  readonly firstLine: number
  readonly error?: string
}

function splitDocuments(text: string): Chunk[] {
  const chunks: Chunk[] = []
  let current: string[] = []
  let firstLine = 1
  for (const [i, line] of text.split('\n').entries()) {
    if (!line.startsWith('---')) {
      current.push(line)
      continue
    }
    chunks.push({ text: current.join('\n'), firstLine })
    current = []
    firstLine = i + 2
    const rest = line.slice(3).trim()
    if (rest !== '' && !rest.startsWith('#')) {
      chunks.push({ text: '', firstLine: i + 1, error: `line ${i + 1}: only a comment may follow "---", found ${JSON.stringify(rest)}` })
      return chunks
    }
  }
  chunks.push({ text: current.join('\n'), firstLine })
  return chunks
}

function yamlMessage(err: YAMLException, firstLine: number): string {
  const line = err.mark?.line
  const where = typeof line === 'number' ? `line ${firstLine + line}: ` : ''
  return `${where}${err.reason || err.message}`
}

/** A checked copy that is JSON data only; NaN and infinities are errors, as in Go's JSON encoder. */
function toJson(v: unknown, document: number, budget: { nodes: number }): unknown {
  if (++budget.nodes > MAX_NODES) {
    throw new YamlDocumentError(document, `the rendered output expands to more than ${MAX_NODES} values (YAML aliases?)`)
  }
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new YamlDocumentError(document, `${formatGoFloat(v)} (.inf or .nan) cannot be represented in JSON`)
    return v
  }
  if (Array.isArray(v)) return v.map((e: unknown) => toJson(e, document, budget))
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, e] of Object.entries(v)) {
      Object.defineProperty(out, k, { value: toJson(e, document, budget), enumerable: true, writable: true, configurable: true })
    }
    return out
  }
  throw new YamlDocumentError(document, `unexpected ${typeof v} value`)
}
