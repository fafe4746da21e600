// Reading decoded YAML into Helm's Go structs the way sigs.k8s.io/yaml and
// encoding/json do it, so a Chart.yaml Helm accepts is accepted here and one
// it rejects is rejected:
//  - object keys match struct fields exactly first, then case-insensitively;
//  - null leaves a field at its zero value; unknown keys are ignored;
//  - a number or bool is turned into a string where the field is a string
//    (`version: 1.10` becomes "1.1", formatted as a float32, like Go);
//  - any other type mismatch is an error naming the field.
// Only JSON data reaches here (see src/encoding/yaml.ts), so a float such as
// 2.0 and an integer 2 are the same number; Go formats both as "2".

import { formatGoFloat } from '../../encoding/gostrconv.ts'

export class StructDecodeError extends Error {
  override readonly name = 'StructDecodeError'
  readonly field: string
  constructor(field: string, message: string) {
    super(`${field}: ${message}`)
    this.field = field
  }
}

export type JsonObject = { readonly [key: string]: unknown }

function kind(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'a list'
  if (typeof v === 'object') return 'a mapping'
  return `a ${typeof v}`
}

/** strconv.FormatFloat(v, 'g', -1, 32): the shortest digits that survive a float32 round trip. */
function formatFloat32(v: number): string {
  const f = Math.fround(v)
  for (let p = 1; p <= 9; p++) {
    const s = Number(f.toPrecision(p))
    if (Math.fround(s) === f) return formatGoFloat(s)
  }
  return formatGoFloat(f)
}

/** The scalar as Go would store it in a string field, or undefined when it cannot be one. */
function coerceToString(v: unknown): string | undefined {
  if (typeof v === 'string') return v
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (typeof v === 'number') return Number.isSafeInteger(v) ? String(v) : formatFloat32(v)
  return undefined
}

/** A struct being read: fields looked up by their JSON name, exactly or case-insensitively. */
export class StructReader {
  readonly #obj: JsonObject
  readonly #path: string
  constructor(obj: JsonObject, path: string) {
    this.#obj = obj
    this.#path = path
  }

  /** The struct at `value`, or an error when it is not a mapping (null is an empty struct). */
  static of(value: unknown, path: string): StructReader {
    if (value === null || value === undefined) return new StructReader({}, path)
    if (typeof value !== 'object' || Array.isArray(value)) throw new StructDecodeError(path, `expected a mapping, found ${kind(value)}`)
    return new StructReader(value as JsonObject, path)
  }

  path(field: string): string {
    return this.#path === '' ? field : `${this.#path}.${field}`
  }

  /**
   * The value for a JSON field name. sigs.k8s.io/yaml hands encoding/json an
   * object with sorted keys, and every key that matches the field exactly or
   * case-insensitively assigns it: the last such key in byte order wins.
   */
  raw(field: string): unknown {
    const lower = field.toLowerCase()
    let found: string | undefined
    for (const k of Object.keys(this.#obj)) {
      if (k.toLowerCase() === lower && (found === undefined || k > found)) found = k
    }
    return found === undefined ? undefined : this.#obj[found]
  }

  string(field: string): string {
    const v = this.raw(field)
    if (v === null || v === undefined) return ''
    const s = coerceToString(v)
    if (s === undefined) throw new StructDecodeError(this.path(field), `expected a string, found ${kind(v)}`)
    return s
  }

  bool(field: string): boolean {
    const v = this.raw(field)
    if (v === null || v === undefined) return false
    if (typeof v !== 'boolean') throw new StructDecodeError(this.path(field), `expected true or false, found ${kind(v)}`)
    return v
  }

  /** A list field; each element read by `item` (null elements reach `item` as null). */
  list<T>(field: string, item: (v: unknown, path: string) => T): T[] {
    const v = this.raw(field)
    if (v === null || v === undefined) return []
    if (!Array.isArray(v)) throw new StructDecodeError(this.path(field), `expected a list, found ${kind(v)}`)
    return v.map((e: unknown, i) => item(e, `${this.path(field)}[${i}]`))
  }

  strings(field: string): string[] {
    return this.list(field, (v, path) => {
      if (v === null) return ''
      const s = coerceToString(v)
      if (s === undefined) throw new StructDecodeError(path, `expected a string, found ${kind(v)}`)
      return s
    })
  }

  /** A map[string]string field; undefined when absent or null. */
  stringMap(field: string): Record<string, string> | undefined {
    const v = this.raw(field)
    if (v === null || v === undefined) return undefined
    if (typeof v !== 'object' || Array.isArray(v)) throw new StructDecodeError(this.path(field), `expected a mapping, found ${kind(v)}`)
    const out: Record<string, string> = {}
    for (const [k, e] of Object.entries(v)) {
      const s = e === null ? '' : coerceToString(e)
      if (s === undefined) throw new StructDecodeError(`${this.path(field)}.${k}`, `expected a string, found ${kind(e)}`)
      Object.defineProperty(out, k, { value: s, enumerable: true, writable: true, configurable: true })
    }
    return out
  }

  /** A []interface{} field, kept as decoded. */
  anyList(field: string): unknown[] {
    return this.list(field, (v) => v)
  }
}
