// toToml: BurntSushi/toml's encoder as Helm calls it on template values.
// A table's plain keys come first (sorted), then its sub-tables as
// `[a.b]` headers indented two spaces per level, arrays of tables as
// `[[a]]`. Floats always carry a fraction ("80.0"); nil values are left out.
// An error is returned as its message, as Helm's toToml does.

import { GoInt, GoObject, GoTime } from '../../gotemplate/index.ts'
import type { GoValue } from '../../gotemplate/index.ts'
import { formatFloatG } from '../../gotemplate/sprig/gofmt.ts'
import { goTypeOf } from '../../gotemplate/sprig/types.ts'
import { compareGoStrings } from '../../gotemplate/sprig/utf8.ts'

class TomlError extends Error {}

const isTable = (v: GoValue): v is Record<string, GoValue> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof GoInt) && !(v instanceof GoTime) && !(v instanceof GoObject)

const isTableArray = (v: GoValue): boolean => Array.isArray(v) && v.length > 0 && v.every((e) => isTable(e as GoValue))

function quoteKey(k: string): string {
  return /^[A-Za-z0-9_-]+$/.test(k) ? k : quoteString(k)
}

function quoteString(s: string): string {
  let out = '"'
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0
    if (ch === '"') out += '\\"'
    else if (ch === '\\') out += '\\\\'
    else if (ch === '\n') out += '\\n'
    else if (ch === '\t') out += '\\t'
    else if (ch === '\r') out += '\\r'
    else if (ch === '\b') out += '\\b'
    else if (ch === '\f') out += '\\f'
    else if (c < 0x20 || c === 0x7f) out += `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`
    else out += ch
  }
  return `${out}"`
}

function floatText(f: number): string {
  if (Number.isNaN(f)) return 'nan'
  if (f === Infinity) return 'inf'
  if (f === -Infinity) return '-inf'
  const s = formatFloatG(f)
  return /[.eEn]/.test(s) ? s.replace(/e([+-])0*(\d)/, 'e$1$2') : `${s}.0`
}

function scalar(v: GoValue): string {
  if (typeof v === 'string') return quoteString(v)
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (typeof v === 'number') return floatText(v)
  if (typeof v === 'bigint') return v.toString()
  if (v instanceof GoInt) return v.value.toString()
  if (Array.isArray(v)) {
    const items = (v as readonly GoValue[]).filter((e) => e !== null && e !== undefined)
    return `[${items.map(scalar).join(', ')}]`
  }
  if (isTable(v)) {
    const keys = Object.keys(v).sort(compareGoStrings)
    return `{${keys.map((k) => `${quoteKey(k)} = ${scalar(v[k] ?? null)}`).join(', ')}}`
  }
  throw new TomlError(`toml: unsupported type: ${goTypeOf(v)}`)
}

function table(out: string[], path: readonly string[], t: Record<string, GoValue>, indent: string, header: string | undefined): void {
  if (header !== undefined) {
    if (out.length > 0) out.push('\n')
    out.push(`${indent.slice(2)}${header}\n`)
  }
  const keys = Object.keys(t).sort(compareGoStrings)
  for (const k of keys) {
    const v = t[k] ?? null
    if (v === null || isTable(v) || isTableArray(v)) continue
    out.push(`${indent}${quoteKey(k)} = ${scalar(v)}\n`)
  }
  for (const k of keys) {
    const v = t[k] ?? null
    const sub = [...path, quoteKey(k)]
    if (isTable(v)) table(out, sub, v, `${indent}  `, `[${sub.join('.')}]`)
    else if (isTableArray(v)) {
      for (const e of v as readonly GoValue[]) table(out, sub, e as Record<string, GoValue>, `${indent}  `, `[[${sub.join('.')}]]`)
    }
  }
}

export function toToml(v: GoValue): string {
  try {
    if (!isTable(v)) throw new TomlError('toml: top-level values must be Go maps or structs')
    const out: string[] = []
    table(out, [], v, '', undefined)
    return out.join('')
  } catch (e) {
    if (e instanceof TomlError) return e.message
    throw e
  }
}
