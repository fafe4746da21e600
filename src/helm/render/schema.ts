// values.schema.json validation with @cfworker/json-schema (docs/helm-render-schema.md
// says why this library). As in Helm: the root chart's schema checks all
// coalesced values, each enabled subchart's schema its own table (global
// included); `$schema` selects the draft, 2020-12 when absent. Messages
// follow Helm's layout: "<chart>:" then one "- at '<pointer>': <why>" line
// per failing leaf.

import { type OutputUnit, type SchemaDraft, Validator } from '@cfworker/json-schema'
import { GoInt } from '../../gotemplate/index.ts'
import { isTable, type JsonMap, setKey } from './data.ts'
import { HelmRenderError } from './errors.ts'
import type { RenderChart } from './model.ts'
import { withGoPatterns } from './schema-patterns.ts'

const DRAFTS: ReadonlyArray<readonly [RegExp, SchemaDraft]> = [
  [/draft-04/, '4'],
  [/draft-06/, '7'],
  [/draft-07/, '7'],
  [/2019-09/, '2019-09'],
  [/2020-12/, '2020-12'],
]

function draftOf(schema: unknown): SchemaDraft {
  if (isTable(schema) && typeof schema.$schema === 'string') {
    for (const [re, d] of DRAFTS) if (re.test(schema.$schema)) return d
  }
  return '2020-12'
}

const validators = new WeakMap<Buffer, Validator | HelmRenderError>()

function validatorFor(chart: string, raw: Buffer): Validator {
  let v = validators.get(raw)
  if (v === undefined) {
    try {
      const schema = JSON.parse(raw.toString('utf8')) as unknown
      if (typeof schema !== 'boolean' && !isTable(schema)) throw new Error('a schema is an object or a boolean')
      v = new Validator(schema as never, draftOf(schema), false)
    } catch (e) {
      v = new HelmRenderError('SchemaViolation', `${chart}: values.schema.json: ${(e as Error).message}`, { cause: e })
    }
    validators.set(raw, v)
  }
  if (v instanceof HelmRenderError) throw v
  return v
}

function jsonType(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number'
  if (typeof v === 'object') return 'object'
  return typeof v
}

function pointerOf(location: string): string {
  const p = location.replace(/^#/, '')
  return p === '' ? '' : p
}

function at(instance: unknown, pointer: string): unknown {
  let cur = instance
  for (const raw of pointer.split('/').slice(1)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~')
    if (Array.isArray(cur)) cur = cur[Number(key)]
    else if (isTable(cur)) cur = cur[key]
    else return undefined
  }
  return cur
}

/** One leaf error in santhosh-tekuri/jsonschema's words where the keyword is a common one. */
function describe(u: OutputUnit, values: unknown): string {
  const got = at(values, pointerOf(u.instanceLocation))
  const m = /Expected "(.*)"\.$/.exec(u.error)
  switch (u.keyword) {
    case 'type':
      return `got ${jsonType(got) === 'integer' ? 'number' : jsonType(got)}, want ${(m?.[1] ?? '').split('", "').join(' or ')}`
    case 'required': {
      const prop = /property "(.*)"\.$/.exec(u.error)?.[1] ?? ''
      return `missing property '${prop}'`
    }
    case 'enum': {
      const list = /any of (.*)\.$/.exec(u.error)?.[1]
      const items = list === undefined ? [] : (JSON.parse(list) as unknown[])
      return `value must be one of ${items.map((i) => (typeof i === 'string' ? `'${i}'` : JSON.stringify(i))).join(', ')}`
    }
    case 'false':
      return 'false schema'
    default:
      return u.error
  }
}

const CONTAINERS = new Set(['properties', 'items', 'allOf', 'anyOf', 'oneOf', 'prefixItems', '$ref', 'dependentSchemas', 'then', 'else'])

function validateOne(chart: RenderChart, values: JsonMap): string {
  const raw = chart.source.schema
  if (raw === undefined) return ''
  let result: ReturnType<Validator['validate']>
  try {
    const validator = validatorFor(chart.name, raw)
    result = withGoPatterns(() => validator.validate(values))
  } catch (e) {
    if (e instanceof HelmRenderError) throw e
    // A $ref the library cannot resolve: remote documents are never fetched.
    throw new HelmRenderError('SchemaViolation', `${chart.name}: values.schema.json: ${(e as Error).message.split('\n')[0]}`, { cause: e })
  }
  if (result.valid) return ''
  return `${chart.name}:\n${[...new Set(leafLines(result.errors, values))].join('\n')}\n`
}

const propertyOf = (u: OutputUnit): string => /^Property "(.*)" does not match/.exec(u.error)?.[1] ?? ''
// The library's pointer encoding of one key.
const encodePointer = (key: string): string => encodeURI(key.replaceAll('~', '~0').replaceAll('/', '~1')).replaceAll('#', '%23')

/**
 * One "- at '<pointer>': <why>" line per failing leaf, as santhosh-tekuri
 * reports them: a property that `additionalProperties: false` rejects is named
 * at its object (all of one object's on one line); a property that fails an
 * additionalProperties schema is reported by what failed in it, at its own
 * pointer. Units that only say a subschema failed are left out.
 */
function leafLines(errors: readonly OutputUnit[], values: unknown): string[] {
  const lines: string[] = []
  const rejected = new Map<string, { line: number; props: string[] }>()
  for (let i = 0; i < errors.length; i++) {
    const u = errors[i] as OutputUnit
    if (u.keyword === 'additionalProperties') {
      // The library reports the false schema right after, at the property's own pointer.
      const prop = propertyOf(u)
      const next = errors[i + 1]
      if (next?.keyword === 'false' && next.instanceLocation === `${u.instanceLocation}/${encodePointer(prop)}`) {
        const pointer = pointerOf(u.instanceLocation)
        const seen = rejected.get(pointer)
        if (seen === undefined) {
          rejected.set(pointer, { line: lines.length, props: [prop] })
          lines.push('')
        } else seen.props.push(prop)
        i++
      }
      continue
    }
    if (CONTAINERS.has(u.keyword) || u.error === 'A subschema had errors.') continue
    lines.push(`- at '${pointerOf(u.instanceLocation)}': ${describe(u, values)}`)
  }
  for (const [pointer, { line, props }] of rejected) {
    lines[line] = `- at '${pointer}': additional properties ${props.map((p) => `'${p}'`).join(', ')} not allowed`
  }
  return lines.length > 0 ? lines : errors.map((u) => `- at '${pointerOf(u.instanceLocation)}': ${describe(u, values)}`)
}

function collect(chart: RenderChart, values: JsonMap): string {
  let out = validateOne(chart, values)
  for (const sub of chart.dependencies) {
    if (!Object.hasOwn(values, sub.name)) continue
    const raw = values[sub.name]
    if (raw === null || raw === undefined) continue
    if (!isTable(raw)) {
      out += `${sub.name}:\ninvalid type for values: expected object (map), got ${Array.isArray(raw) ? '[]interface {}' : typeof raw}\n`
      continue
    }
    out += collect(sub, raw)
  }
  return out
}

/**
 * The values as the validator sees them: an int64 from --set (a GoInt) is the
 * JSON number it is to Helm's validator. The same objects when there is none.
 */
function asJsonNumbers(v: unknown): unknown {
  if (v instanceof GoInt) return Number(v.value)
  if (Array.isArray(v)) {
    const items = v.map(asJsonNumbers)
    return items.every((e, i) => e === v[i]) ? v : items
  }
  if (!isTable(v)) return v
  let out: JsonMap | undefined
  for (const [k, e] of Object.entries(v)) {
    const c = asJsonNumbers(e)
    if (c === e) continue
    out ??= { ...v }
    setKey(out, k, c)
  }
  return out ?? v
}

/** ValidateAgainstSchema over the tree; throws HelmRenderError (SchemaViolation) listing every failing chart. */
export function validateValues(root: RenderChart, values: JsonMap): void {
  const out = collect(root, asJsonNumbers(values) as JsonMap)
  if (out !== '') {
    throw new HelmRenderError(
      'SchemaViolation',
      `values don't meet the specifications of the schema(s) in the following chart(s):\n${out.trimEnd()}`,
    )
  }
}
