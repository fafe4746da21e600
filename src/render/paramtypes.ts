// Declared parameter types. A value is checked against its type and, for
// `array` and `object`, decoded from its JSON text so that templates receive
// a list or map. Scalars stay strings: `type: number` only says the text must
// parse as a Go float64, it does not turn "2" into 2.

import type { ParameterType } from '../api/template.ts'
import { PARAMETER_TYPES } from '../api/template.ts'
import type { ParameterValue } from '../api/templateinstance.ts'
import { isGoBool, isGoFloat } from '../encoding/gostrconv.ts'
import type { ParamValue } from './types.ts'

export type TypeCheck = { readonly ok: true; readonly value: ParamValue } | { readonly ok: false }

export function isParameterType(t: unknown): t is ParameterType {
  return typeof t === 'string' && (PARAMETER_TYPES as readonly string[]).includes(t)
}

function isList(v: unknown): v is ParameterValue[] {
  return Array.isArray(v)
}

function isMap(v: unknown): v is { [key: string]: ParameterValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * Checks `value` against `type` (undefined: anything goes). A list or map
 * never satisfies string, number or bool; array and object accept JSON text
 * of that shape or a list/map from an objectFieldRef.
 */
export function checkParameterType(type: ParameterType | undefined, value: ParamValue): TypeCheck {
  const ok = (v: ParamValue): TypeCheck => ({ ok: true, value: v })
  const no: TypeCheck = { ok: false }
  switch (type) {
    case undefined:
      return ok(value)
    case 'string':
      return typeof value === 'string' ? ok(value) : no
    case 'number':
      return typeof value === 'string' && isGoFloat(value) ? ok(value) : no
    case 'bool':
      return typeof value === 'string' && isGoBool(value) ? ok(value) : no
    case 'array': {
      const v = typeof value === 'string' ? parseJson(value) : value
      return isList(v) ? ok(v) : no
    }
    case 'object': {
      const v = typeof value === 'string' ? parseJson(value) : value
      return isMap(v) ? ok(v) : no
    }
  }
}

/** The value of a parameter nobody set: "" for scalars, [] or {} for array and object. */
export function emptyValue(type: ParameterType | undefined): ParamValue {
  if (type === 'array') return []
  if (type === 'object') return {}
  return ''
}
