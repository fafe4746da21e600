// Helm's YAML functions over template values:
//   toYaml       sigs.k8s.io/yaml.Marshal: encoding/json first, the JSON then
//                read by go-yaml v2 (JSON numbers become ints or floats) and
//                emitted by it: keys in go-yaml's natural order, sequences not
//                indented under their key, exactly one trailing newline dropped
//   toYamlPretty go-yaml v3 on the Go values themselves, indent 2
//   fromYaml     sigs.k8s.io/yaml.Unmarshal into a map (errors in an "Error" key)

import { GoInt, GoObject, GoTime, newMap, setKey } from '../../gotemplate/index.ts'
import type { GoValue } from '../../gotemplate/index.ts'
import { encodeJSON, JSONError } from '../../gotemplate/sprig/gojson.ts'
import { formatFloatG } from '../../gotemplate/sprig/gofmt.ts'
import { bytesOf } from '../../gotemplate/sprig/types.ts'
import { resolveGoYamlScalar } from '../../encoding/yaml.ts'
import { emitYaml, type YamlNode } from './yaml-emit.ts'

const BASE60 = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/
// go-yaml's parseTimestamp: four digits and a dash start it, then one of its layouts.
const TIMESTAMP =
  /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?$/

/** Whether go-yaml would read the string back as a string when written plain. */
function plainIsString(s: string): boolean {
  if (BASE60.test(s)) return false
  const c = s.charCodeAt(0)
  if (c >= 0x30 && c <= 0x39 && TIMESTAMP.test(s)) return false
  return resolveGoYamlScalar(s).tag === 'str'
}

const OLD_BOOLS = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF'])

function stringNode(s: string, v3: boolean): YamlNode {
  if (s.includes('\n')) return { t: 'scalar', value: s, style: 'literal' }
  const plain = plainIsString(s) && !(v3 && OLD_BOOLS.has(s))
  return { t: 'scalar', value: s, style: plain ? 'plain' : 'double' }
}

const isLetter = (c: string): boolean => /\p{L}/u.test(c)
const isDigit = (c: string): boolean => /\p{Nd}/u.test(c)

/** go-yaml's keyList.Less for two string keys: letters before digits, digit runs compared as numbers. */
export function yamlKeyLess(a: string, b: string): boolean {
  const ar = [...a]
  const br = [...b]
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const x = ar[i] as string
    const y = br[i] as string
    if (x === y) continue
    const al = isLetter(x)
    const bl = isLetter(y)
    if (al && bl) return (x.codePointAt(0) ?? 0) < (y.codePointAt(0) ?? 0)
    if (al || bl) return bl
    let an = 0n
    let bn = 0n
    if (x === '0' || y === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j] as string); j--) {
        if (ar[j] !== '0') {
          an = 1n
          bn = 1n
          break
        }
      }
    }
    let ai = i
    for (; ai < ar.length && isDigit(ar[ai] as string); ai++) an = an * 10n + BigInt((ar[ai]?.codePointAt(0) ?? 48) - 48)
    let bi = i
    for (; bi < br.length && isDigit(br[bi] as string); bi++) bn = bn * 10n + BigInt((br[bi]?.codePointAt(0) ?? 48) - 48)
    if (an !== bn) return an < bn
    if (ai !== bi) return ai < bi
    return (x.codePointAt(0) ?? 0) < (y.codePointAt(0) ?? 0)
  }
  return ar.length < br.length
}

const keyCompare = (a: string, b: string): number => (a === b ? 0 : yamlKeyLess(a, b) ? -1 : 1)

// ---- toYaml: through JSON ----

const INT64_MIN = -(2n ** 63n)
const UINT64_MAX = 2n ** 64n - 1n

/** A JSON number as go-yaml v2 reads and writes it back. */
function jsonNumberNode(text: string): YamlNode {
  if (/^-?[0-9]+$/.test(text)) {
    const n = BigInt(text)
    if (n >= INT64_MIN && n <= UINT64_MAX) return { t: 'scalar', value: n.toString(), style: 'plain' }
  }
  return { t: 'scalar', value: floatText(Number(text)), style: 'plain' }
}

function floatText(f: number): string {
  if (f === Infinity) return '.inf'
  if (f === -Infinity) return '-.inf'
  if (Number.isNaN(f)) return '.nan'
  return formatFloatG(f)
}

/** Reads the JSON that encodeJSON wrote, straight into YAML nodes. */
class JsonToNodes {
  i = 0
  readonly s: string
  constructor(s: string) {
    this.s = s
  }
  value(): YamlNode {
    const c = this.s[this.i]
    if (c === '{') {
      this.i++
      const entries: [string, YamlNode][] = []
      if (this.s[this.i] === '}') {
        this.i++
        return { t: 'map', entries: [] }
      }
      for (;;) {
        const k = this.string()
        this.i++ // ':'
        entries.push([k, this.value()])
        if (this.s[this.i++] === '}') break
      }
      entries.sort((a, b) => keyCompare(a[0], b[0]))
      return { t: 'map', entries: entries.map(([k, v]) => [stringNode(k, false), v] as const) }
    }
    if (c === '[') {
      this.i++
      const items: YamlNode[] = []
      if (this.s[this.i] === ']') {
        this.i++
        return { t: 'seq', items }
      }
      for (;;) {
        items.push(this.value())
        if (this.s[this.i++] === ']') break
      }
      return { t: 'seq', items }
    }
    if (c === '"') return stringNode(this.string(), false)
    const m = /^(?:true|false|null|-?[0-9][0-9.eE+-]*)/.exec(this.s.slice(this.i, this.i + 40))
    const tok = m?.[0] ?? ''
    this.i += tok.length
    if (tok === 'true' || tok === 'false' || tok === 'null') return { t: 'scalar', value: tok, style: 'plain' }
    return jsonNumberNode(tok)
  }
  string(): string {
    const start = this.i
    this.i++
    for (;;) {
      const c = this.s.charCodeAt(this.i)
      if (c === 0x5c) this.i += 2
      else if (c === 0x22) break
      else this.i++
    }
    this.i++
    return JSON.parse(this.s.slice(start, this.i)) as string
  }
}

/** toYaml's text, or undefined when json.Marshal fails (Helm then returns ""). */
export function toYamlV2(v: GoValue): string | undefined {
  let json: string
  try {
    json = encodeJSON(v, { escapeHTML: false, indent: '' })
  } catch (e) {
    if (e instanceof JSONError) return undefined
    throw e
  }
  const out = emitYaml(new JsonToNodes(json).value(), { indentSequences: false, width: 80 })
  return out.endsWith('\n') ? out.slice(0, -1) : out
}

// ---- toYamlPretty: go-yaml v3 on the values ----

function prettyNode(v: GoValue): YamlNode {
  if (v === null || v === undefined) return { t: 'scalar', value: 'null', style: 'plain' }
  switch (typeof v) {
    case 'string':
      return stringNode(v, true)
    case 'boolean':
      return { t: 'scalar', value: v ? 'true' : 'false', style: 'plain' }
    case 'number':
      return { t: 'scalar', value: floatText(v), style: 'plain' }
    case 'bigint':
      return { t: 'scalar', value: v.toString(), style: 'plain' }
  }
  if (v instanceof GoInt) return { t: 'scalar', value: v.value.toString(), style: 'plain' }
  if (v instanceof GoTime || v instanceof GoObject) {
    // Values without a YAML form of their own: their JSON shape.
    const text = toYamlV2(v)
    return prettyNode(text === undefined ? null : (fromJsonish(v) ?? null))
  }
  if (Array.isArray(v)) {
    const bytes = bytesOf(v)
    if (bytes !== undefined) return stringNode(Buffer.from(bytes).toString('utf8'), true)
    return { t: 'seq', items: (v as readonly GoValue[]).map(prettyNode) }
  }
  const keys = Object.keys(v).sort(keyCompare)
  const m = v as Record<string, GoValue>
  return { t: 'map', entries: keys.map((k) => [stringNode(k, true), prettyNode(m[k])] as const) }
}

function fromJsonish(v: GoObject | GoTime): GoValue {
  return v instanceof GoObject ? v.jsonValue() : null
}

export function toYamlPretty(v: GoValue): string {
  const out = emitYaml(prettyNode(v), { indentSequences: true, width: Infinity })
  return out.endsWith('\n') ? out.slice(0, -1) : out
}

export function errorMap(message: string): GoValue {
  const m = newMap()
  setKey(m, 'Error', message)
  return m
}
