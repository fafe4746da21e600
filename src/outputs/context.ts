// The data that source names and keys are templated over, and the frozen
// rule: a frozen instance (sync mode off) reads parameters only from the
// values recorded in status.resolvedParameters, never from live sources, so a
// template that reads a parameter without a recorded value cannot be
// resolved and names that parameter.

import type { ParameterValue, ResolvedParameter } from '../api/templateinstance.ts'
import { parameterReferences, type TemplatePart } from './template.ts'
import type { ExtractInput } from './types.ts'

export interface TemplateScope {
  /** `{parameters, instance}` for source names. */
  readonly names: Readonly<Record<string, unknown>>
  /** `{object, item, index, instance, parameters}` for keys. */
  keys(vars: { readonly object: unknown; readonly item?: unknown; readonly index?: number }): Readonly<Record<string, unknown>>
  /** Why `parts` cannot be evaluated on a frozen instance, or undefined when they can. */
  unavailable(parts: readonly TemplatePart[]): string | undefined
}

export function templateScope(input: Pick<ExtractInput, 'context' | 'frozen' | 'resolvedParameters' | 'exposedParameters'>): TemplateScope {
  const { instance } = input.context
  const inst = { name: instance.name, namespace: instance.namespace, labels: { ...instance.labels } }
  const parameters = input.frozen ? recordedValues(input.resolvedParameters ?? []) : jsonRecord(input.context.parameters)
  const declared = new Set((input.resolvedParameters ?? []).map((p) => p.name))
  return {
    names: { parameters, instance: inst },
    keys: ({ object, item, index }) => {
      const data: Record<string, unknown> = { object, instance: inst, parameters }
      if (item !== undefined) data['item'] = item
      if (index !== undefined) data['index'] = index
      return data
    },
    unavailable: (parts) => {
      if (!input.frozen) return undefined
      const refs = parameterReferences(parts)
      const wanted = refs.all ? [...declared] : refs.names
      const missing = wanted.filter((n) => !Object.hasOwn(parameters, n))
      if (missing.length === 0) return undefined
      return missing.map((n) => explainMissing(n, declared.has(n), input.exposedParameters.has(n))).join('; ')
    },
  }
}

function explainMissing(name: string, declared: boolean, exposed: boolean): string {
  const p = `parameter ${JSON.stringify(name)}`
  const frozen = 'the instance is frozen (sync mode off), so parameters are read only from status.resolvedParameters'
  if (exposed) {
    return `${p} sets exposeInStatus but has no recorded value; ${frozen}, and values are recorded only on a full pass: cycle the sync mode (off -> revert -> off) or recreate the instance`
  }
  if (!declared) return `${p} is not among status.resolvedParameters; ${frozen}`
  return `${p} does not set exposeInStatus, so its value is not recorded; ${frozen}`
}

/** Parameter name -> recorded value, for the entries that carry one. */
function recordedValues(resolved: readonly ResolvedParameter[]): Record<string, ParameterValue> {
  return Object.fromEntries(resolved.filter((p) => p.value !== undefined).map((p) => [p.name, jsonCopy(p.value)]))
}

function jsonRecord(o: Readonly<Record<string, unknown>>): Record<string, ParameterValue> {
  return Object.fromEntries(
    Object.entries(o)
      .filter(([, e]) => e !== undefined)
      .map(([k, e]) => [k, jsonCopy(e)]),
  )
}

/** A plain JSON copy (Object.fromEntries keeps a "__proto__" key as data). */
function jsonCopy(v: unknown): ParameterValue {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v
  if (typeof v === 'number') return Number.isFinite(v) ? v : null
  if (Array.isArray(v)) return v.map(jsonCopy)
  if (typeof v === 'object') return jsonRecord(v as Record<string, unknown>)
  return null
}
