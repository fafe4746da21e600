// objectFieldRef evaluation over an object the caller already fetched: one
// object for a GET, the List object ({ items: [...] }) for a LIST.
//
// jsonpath-plus runs with `eval: false` on an expression rebuilt from our own
// parse (see jsonpath.ts), so no part of a user's path is ever run as code.
// Its results are then checked to have been reached the way JSON is walked:
// jsonpath-plus follows any own property, so `.length` on a list or `[0]` on
// a string would otherwise "match".

import { JSONPath } from 'jsonpath-plus'
import type { ParameterValue } from '../api/templateinstance.ts'
import { formatGoFloat } from '../encoding/gostrconv.ts'
import { JsonPathError, parseObjectFieldPath, toJsonPathPlus } from './jsonpath.ts'
import { SourceError } from './sources.ts'
import type { ParamValue } from './types.ts'

export type ObjectFieldMode = 'get' | 'list'

interface Match {
  readonly value: unknown
  readonly parent: unknown
  readonly parentProperty: unknown
}

/**
 * The value `jsonPath` selects in `obj`.
 *
 * - get: one match is returned as is, a scalar printed the way kubectl's
 *   JSONPath prints it (strings unchanged, integers in decimal, other numbers
 *   like Go's %v, booleans as true/false); several matches are a list.
 * - list: always a list of the matches, JSON values unchanged.
 *
 * A null value counts as absent. No match, or a path that is not valid, throws
 * SourceError.
 */
export function evaluateObjectField(obj: unknown, jsonPath: string, mode: ObjectFieldMode): ParamValue {
  let expr: string | undefined
  try {
    expr = toJsonPathPlus(parseObjectFieldPath(jsonPath))
  } catch (err) {
    if (err instanceof JsonPathError) throw new SourceError(err.message, { cause: err })
    throw err
  }
  const values = expr === undefined ? [] : select(obj, expr)
  if (values.length === 0) throw new SourceError(`jsonPath ${JSON.stringify(jsonPath)} matched nothing`)
  if (mode === 'list' || values.length > 1) return values.map((v) => toParameterValue(v))
  const only = values[0]
  return isComposite(only) ? cloneComposite(only) : printScalar(only)
}

function select(obj: unknown, expr: string): unknown[] {
  if (typeof obj !== 'object' || obj === null) return []
  const matches = JSONPath({
    path: expr,
    json: obj,
    eval: false,
    resultType: 'all',
    wrap: true,
  }) as Match[]
  const out: unknown[] = []
  for (const m of matches) {
    if (m.value === null || m.value === undefined || !reachedAsJson(m)) continue
    out.push(m.value)
  }
  return out
}

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/

/** The last step went into a list by index or into a map by key; the root (no parent) counts too. */
function reachedAsJson(m: Match): boolean {
  if (m.parent === null || m.parent === undefined) return true
  if (Array.isArray(m.parent)) return ARRAY_INDEX.test(String(m.parentProperty))
  return typeof m.parent === 'object' && typeof m.parentProperty === 'string'
}

function isComposite(v: unknown): v is object {
  return typeof v === 'object' && v !== null
}

/** How kubectl's JSONPath prints a scalar. */
function printScalar(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return v
    case 'boolean':
      return v ? 'true' : 'false'
    case 'number':
      // Go decodes integral JSON numbers of unstructured objects as int64.
      return Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? BigInt(v).toString() : formatGoFloat(v)
    default:
      return String(v)
  }
}

function cloneComposite(v: object): ParameterValue[] | { [key: string]: ParameterValue } {
  const copy = toParameterValue(v)
  return typeof copy === 'object' && copy !== null ? copy : []
}

/** A deep copy with only JSON values: the result must never alias the cached object. */
function toParameterValue(v: unknown): ParameterValue {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v
  if (typeof v === 'number') return Number.isFinite(v) ? v : null
  if (Array.isArray(v)) return v.map((e: unknown) => toParameterValue(e))
  if (typeof v === 'object') {
    const out: { [key: string]: ParameterValue } = {}
    for (const [k, e] of Object.entries(v)) {
      if (e === undefined) continue
      // defineProperty keeps a "__proto__" key as data instead of setting the prototype.
      Object.defineProperty(out, k, { value: toParameterValue(e), enumerable: true, writable: true, configurable: true })
    }
    return out
  }
  return null
}
