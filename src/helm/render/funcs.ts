// Helm's template functions (pkg/engine/funcs.go and engine.go): Sprig minus
// env and expandenv, Helm's data-format functions, and the late-bound
// include, tpl, required, fail and lookup. include and tpl reach the render
// in progress through `state` (see engine.ts); nothing here reads the
// environment, files or the network: lookup returns an empty map and
// getHostByName an empty string, as under `helm template`.

import { GoFuncError, newMap } from '../../gotemplate/index.ts'
import type { FuncMap, GoFuncSpec, GoValue } from '../../gotemplate/index.ts'
import { encodeJSON, decodeJSON, JSONError } from '../../gotemplate/sprig/gojson.ts'
import { sprigFuncs } from '../../gotemplate/sprig/index.ts'
import { tagType } from '../../gotemplate/sprig/types.ts'
import { toGoValue } from '../../gotemplate/index.ts'
import { decodeFirstDocument } from '../chart/yaml.ts'
import { durationFuncs } from './durations.ts'
import { toToml } from './toml.ts'
import type { HelmMajor } from './types.ts'
import { errorMap, toYamlPretty, toYamlV2 } from './yaml-values.ts'

/** Marks the text of required/fail so the error reaches the user unwrapped ("execution error at (...): msg"). */
export const WARN_START = 'HELM_ERR_START'
export const WARN_END = 'HELM_ERR_END'

export interface LateBound {
  include(name: string, data: GoValue): string
  tpl(text: string, data: GoValue): string
}

const spec = (params: GoFuncSpec['params'], fn: GoFuncSpec['fn']): GoFuncSpec => ({ fn, params })

function json(v: GoValue): string | undefined {
  try {
    return encodeJSON(v, { escapeHTML: true, indent: '' })
  } catch (e) {
    if (e instanceof JSONError) return undefined
    throw e
  }
}

function yamlDocument(text: string): { value: unknown } | { error: string } {
  try {
    return { value: decodeFirstDocument(text) }
  } catch (e) {
    return { error: `error converting YAML to JSON: yaml: ${e instanceof Error ? e.message : String(e)}` }
  }
}

const jsonTypeName = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'string' ? 'string' : typeof v

function fromYaml(text: string): GoValue {
  const doc = yamlDocument(text)
  if ('error' in doc) return errorMap(doc.error)
  if (doc.value === null) return newMap()
  if (typeof doc.value !== 'object' || Array.isArray(doc.value)) {
    return errorMap(
      `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonTypeName(doc.value)} into Go value of type map[string]interface {}`,
    )
  }
  return toGoValue(doc.value)
}

function fromYamlArray(text: string): GoValue {
  const doc = yamlDocument(text)
  if ('error' in doc) return [doc.error]
  if (doc.value === null) return []
  if (!Array.isArray(doc.value)) {
    return [
      `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonTypeName(doc.value)} into Go value of type []interface {}`,
    ]
  }
  return toGoValue(doc.value)
}

function fromJson(text: string): GoValue {
  try {
    const v = decodeJSON(text)
    if (v === null) return newMap()
    if (typeof v !== 'object' || Array.isArray(v)) {
      return errorMap(`json: cannot unmarshal ${jsonTypeName(v)} into Go value of type map[string]interface {}`)
    }
    return v
  } catch (e) {
    if (e instanceof JSONError) return errorMap(e.message)
    throw e
  }
}

function fromJsonArray(text: string): GoValue {
  try {
    const v = decodeJSON(text)
    if (v === null) return []
    if (!Array.isArray(v)) return [`json: cannot unmarshal ${jsonTypeName(v)} into Go value of type []interface {}`]
    return v
  } catch (e) {
    if (e instanceof JSONError) return [e.message]
    throw e
  }
}

/** The function map of one Helm major; include and tpl call into `late`. */
export function helmFuncs(helm: HelmMajor, late: LateBound): FuncMap {
  const f: Record<string, GoFuncSpec> = { ...sprigFuncs }
  const extra: Record<string, GoFuncSpec> = {
    toToml: spec(['any'], (v) => toToml(v)),
    toYaml: spec(['any'], (v) => toYamlV2(v) ?? ''),
    toYamlPretty: spec(['any'], (v) => toYamlPretty(v)),
    fromYaml: spec(['string'], (s) => fromYaml(s as string)),
    fromYamlArray: spec(['string'], (s) => fromYamlArray(s as string)),
    toJson: spec(['any'], (v) => json(v) ?? ''),
    fromJson: spec(['string'], (s) => fromJson(s as string)),
    fromJsonArray: spec(['string'], (s) => fromJsonArray(s as string)),
    include: spec(['string', 'any'], (name, data) => late.include(name as string, data)),
    tpl: spec(['string', 'any'], (text, data) => late.tpl(text as string, data)),
    required: spec(['string', 'any'], (warn, val) => {
      if (val === null || val === undefined || val === '') throw new GoFuncError(WARN_START + (warn as string) + WARN_END)
      return val
    }),
    fail: spec(['string'], (msg) => {
      throw new GoFuncError(WARN_START + (msg as string) + WARN_END)
    }),
    lookup: spec(['string', 'string', 'string', 'string'], () => newMap()),
    getHostByName: spec(['string'], () => ''),
  }
  if (helm === 'v4') {
    Object.assign(extra, durationFuncs)
    extra.mustToYaml = spec(['any'], (v) => {
      const out = toYamlV2(v)
      if (out === undefined) throw new Error('json: unsupported value')
      return out
    })
    extra.mustToJson = spec(['any'], (v) => {
      const out = json(v)
      if (out === undefined) throw new Error('json: unsupported value')
      return out
    })
    extra.mustToToml = spec(['any'], (v) => toToml(v))
  }
  Object.assign(f, extra)
  delete f.env
  delete f.expandenv
  return Object.freeze(f)
}

export { tagType }
