// Parameter resolution for one TemplateInstance against its Template.
//
// Order of work: every check that needs no I/O first (declarations, instance
// entries, unknown names, disableOverride, required, jsonPath syntax), then
// the values in declaration order, each read and type-checked before the
// next. The first failure ends resolution: one bad parameter and nothing
// renders. Source reads go through ParameterSources, so this file stays pure
// apart from awaiting them.

import type { SourceRef } from '../api/meta.ts'
import type { Template, TemplateParameterDefinition } from '../api/template.ts'
import type { ObjectFieldRef, ResolvedParameter, TemplateInstance, TemplateParameter, ValueFrom } from '../api/templateinstance.ts'
import { parseApiVersion } from '../api/identity.ts'
import { type Access, accessAllowed, refusal } from './grants.ts'
import { JsonPathError, parseObjectFieldPath } from './jsonpath.ts'
import { checkParameterType, emptyValue, isParameterType } from './paramtypes.ts'
import { SourceError } from './sources.ts'
import type { ParameterSources } from './sources.ts'
import type { ParamValue } from './types.ts'

/**
 * What one parameter reads; the reconciler watches these. The namespace
 * defaults to the instance namespace, except for an objectFieldRef LIST
 * without a namespace, which covers every namespace (no value here); it is
 * ignored for a cluster-scoped kind. The name is absent for a LIST.
 */
export interface ParameterSource extends SourceRef {
  readonly parameter: string
}

export type ParameterFailureReason = 'InvalidParameter' | 'OverrideNotAllowed' | 'ParameterResolutionFailed' | 'ParameterSourceForbidden'

export type ParameterResult =
  | {
      readonly ok: true
      /** Name -> value for the template context (a null-prototype object). */
      readonly values: Record<string, ParamValue>
      /** status.resolvedParameters, in declaration order. */
      readonly resolved: ResolvedParameter[]
      readonly sources: ParameterSource[]
      /** Parameters with exposeInStatus whose value came from a Secret: resolved, but not recorded in status. */
      readonly withheld: string[]
      /** The values read from Secrets, which no message, status field or log may carry (redact.ts). */
      readonly secretValues: ParamValue[]
    }
  | {
      readonly ok: false
      readonly reason: ParameterFailureReason
      readonly message: string
      /** The parameter the message is about, when there is one. */
      readonly parameter?: string
      /** Also on failure, so a missing source is watched and its creation heals the instance. */
      readonly sources: ParameterSource[]
    }

export interface ParameterInput {
  readonly template: Pick<Template, 'metadata' | 'spec'>
  readonly instance: Pick<TemplateInstance, 'metadata' | 'spec'>
  readonly sources: ParameterSources
}

type Failure = Extract<ParameterResult, { ok: false }>

/** Where a value came from, for messages. */
interface Origin {
  readonly text: string
  /** The value was read from a Secret and must not appear in any message. */
  readonly secret: boolean
}

const MAX_SHOWN = 64

/**
 * Resolves every parameter the Template declares. Rejects only when a source
 * throws something other than SourceError (a transient API failure the caller
 * retries).
 */
export async function resolveParameters(input: ParameterInput): Promise<ParameterResult> {
  const { template, instance, sources } = input
  const instanceNamespace = instance.metadata?.namespace ?? ''
  const templateRef = `${template.metadata?.namespace ?? ''}/${template.metadata?.name ?? ''}`
  const declared = template.spec.parameters ?? []
  const entries = instance.spec.parameters ?? []
  const decls = new Map<string, TemplateParameterDefinition>()
  for (const d of declared) if (!decls.has(d.name)) decls.set(d.name, d)
  // What each source would read, and whether the instance may read it: a
  // refused source is neither read nor watched.
  const accesses = await sourceAccesses(entries, decls, instanceNamespace, sources)
  const grants = template.spec.grants?.parameterSources
  const refused = entries.find((e) => {
    const a = accesses.get(e.name)
    return a !== undefined && !accessAllowed(grants, a, instanceNamespace)
  })
  const watched = collectSources(entries, decls, instanceNamespace).filter((s) => s.parameter !== refused?.name)
  const fail = (reason: ParameterFailureReason, message: string, parameter?: string): Failure =>
    parameter === undefined ? { ok: false, reason, message, sources: watched } : { ok: false, reason, message, parameter, sources: watched }

  const structural = checkStructure(declared, entries, decls, templateRef)
  if (structural !== undefined) return fail(structural.reason, structural.message, structural.parameter)
  if (refused !== undefined) {
    const access = accesses.get(refused.name) as Access
    return fail(
      'ParameterSourceForbidden',
      `parameter ${q(refused.name)}: valueFrom reads ${refusal(template, access, instanceNamespace, 'parameterSources')}`,
      refused.name,
    )
  }

  const byName = new Map(entries.map((e) => [e.name, e]))
  const values = Object.create(null) as Record<string, ParamValue>
  const resolved: ResolvedParameter[] = []
  const withheld: string[] = []
  const secretValues: ParamValue[] = []
  for (const decl of decls.values()) {
    const entry = byName.get(decl.name)
    let value: ParamValue
    let origin: Origin
    let checked = true
    if (entry?.valueFrom !== undefined) {
      const from = describeSource(entry.valueFrom, instanceNamespace)
      try {
        if (entry.valueFrom.objectFieldRef !== undefined && !accesses.has(entry.name)) {
          // Its scope is unknown, so it cannot be checked: not read, as if the kind were absent.
          throw new SourceError(
            `${entry.valueFrom.objectFieldRef.apiVersion} ${entry.valueFrom.objectFieldRef.kind} is not served by the API server`,
          )
        }
        value = await readSource(sources, entry.valueFrom, instanceNamespace)
        origin = { text: `valueFrom ${from}`, secret: isSecretSource(entry.valueFrom) }
        if (origin.secret) secretValues.push(value)
      } catch (err) {
        if (!(err instanceof SourceError)) throw err
        if (entry.defaultValue === undefined) {
          return fail(
            'ParameterResolutionFailed',
            `parameter ${q(decl.name)} could not be resolved from ${from}: ${err.message}; no defaultValue is set`,
            decl.name,
          )
        }
        value = entry.defaultValue
        origin = { text: `defaultValue (${from} could not be resolved)`, secret: false }
      }
    } else if (entry?.value !== undefined) {
      value = entry.value
      origin = { text: 'the instance', secret: false }
    } else if (decl.value !== undefined) {
      value = decl.value
      origin = { text: "the Template's default", secret: false }
    } else {
      // Nobody set it: the empty value of its type, which is not type-checked.
      value = emptyValue(decl.type)
      origin = { text: 'no value', secret: false }
      checked = false
    }
    if (checked) {
      const typed = checkParameterType(decl.type, value)
      if (!typed.ok) {
        return fail(
          'InvalidParameter',
          `parameter ${q(decl.name)} type mismatch: expected ${decl.type ?? 'a value'}, got ${describeValue(value, origin)} (from ${origin.text})`,
          decl.name,
        )
      }
      value = typed.value
    }
    values[decl.name] = value
    if (decl.exposeInStatus === true && origin.secret) withheld.push(decl.name)
    resolved.push(statusEntry(decl, entry, value, origin))
  }
  return { ok: true, values, resolved, sources: watched, withheld, secretValues }
}

/**
 * What each well-formed valueFrom of a declared parameter would read. An
 * objectFieldRef of a kind the API does not serve has no entry: its scope
 * cannot be told, so it is not read at all.
 */
async function sourceAccesses(
  entries: readonly TemplateParameter[],
  decls: ReadonlyMap<string, TemplateParameterDefinition>,
  instanceNamespace: string,
  sources: ParameterSources,
): Promise<Map<string, Access>> {
  const out = new Map<string, Access>()
  for (const e of entries) {
    if (typeof e.name !== 'string' || !decls.has(e.name) || e.valueFrom === undefined || e.valueFrom === null) continue
    if (entryProblem(e) !== undefined) continue
    const vf = e.valueFrom
    const keyRef = vf.secretKeyRef ?? vf.configMapKeyRef
    if (keyRef !== undefined) {
      const kind = vf.secretKeyRef !== undefined ? 'Secret' : 'ConfigMap'
      out.set(e.name, { group: '', kind, namespace: keyRef.namespace || instanceNamespace, name: keyRef.name })
      continue
    }
    const r = vf.objectFieldRef
    if (r === undefined) continue
    const namespaced = await sources.namespaced(r.apiVersion, r.kind)
    if (namespaced === undefined) continue
    const group = parseApiVersion(r.apiVersion).group
    const name = r.name || undefined
    // A GET without a namespace reads the instance's; a LIST without one reads every namespace.
    const namespace = !namespaced ? undefined : r.namespace || (name !== undefined ? instanceNamespace : '*')
    out.set(e.name, { group, kind: r.kind, namespace, name })
  }
  return out
}

interface StructuralFailure {
  readonly reason: ParameterFailureReason
  readonly message: string
  readonly parameter?: string
}

function checkStructure(
  declared: readonly TemplateParameterDefinition[],
  entries: readonly TemplateParameter[],
  decls: ReadonlyMap<string, TemplateParameterDefinition>,
  templateRef: string,
): StructuralFailure | undefined {
  const invalid = (message: string, parameter?: string): StructuralFailure =>
    parameter === undefined ? { reason: 'InvalidParameter', message } : { reason: 'InvalidParameter', message, parameter }
  const seenDecl = new Set<string>()
  for (const d of declared) {
    if (typeof d.name !== 'string' || d.name === '') return invalid(`Template ${templateRef} declares a parameter without a name`)
    if (seenDecl.has(d.name)) return invalid(`Template ${templateRef} declares parameter ${q(d.name)} more than once`, d.name)
    seenDecl.add(d.name)
    if (d.type !== undefined && !isParameterType(d.type)) {
      return invalid(`Template ${templateRef} declares parameter ${q(d.name)} with unknown type ${q(String(d.type))}`, d.name)
    }
    if (d.required === true && d.disableOverride === true) {
      return invalid(`Template ${templateRef} declares parameter ${q(d.name)} both required and disableOverride`, d.name)
    }
  }
  const seen = new Set<string>()
  for (const [i, e] of entries.entries()) {
    if (typeof e.name !== 'string' || e.name === '') return invalid(`spec.parameters[${i}] has no name`)
    if (seen.has(e.name)) return invalid(`parameter ${q(e.name)} is set more than once`, e.name)
    seen.add(e.name)
    if (!decls.has(e.name)) return invalid(`parameter ${q(e.name)} is not declared by Template ${templateRef}`, e.name)
    const shape = entryProblem(e)
    if (shape !== undefined) return invalid(`parameter ${q(e.name)}: ${shape}`, e.name)
  }
  const given = new Set(entries.map((e) => e.name))
  for (const d of decls.values()) {
    if (given.has(d.name) && d.disableOverride === true) {
      return {
        reason: 'OverrideNotAllowed',
        message: `parameter ${q(d.name)} is locked by Template ${templateRef} (disableOverride) and cannot be set by this instance`,
        parameter: d.name,
      }
    }
    if (!given.has(d.name) && d.required === true) {
      return invalid(`parameter ${q(d.name)} is required by Template ${templateRef} but the instance does not set it`, d.name)
    }
  }
  return undefined
}

/** What is wrong with an instance entry's shape; the CRD rejects these, but stored objects may predate it. */
function entryProblem(e: TemplateParameter): string | undefined {
  const hasValue = e.value !== undefined && e.value !== null
  const hasFrom = e.valueFrom !== undefined && e.valueFrom !== null
  if (hasValue === hasFrom) return 'set exactly one of value and valueFrom'
  if (hasValue && typeof e.value !== 'string') return 'value must be a string'
  if (e.defaultValue !== undefined && !hasFrom) return 'defaultValue is only allowed with valueFrom'
  if (e.defaultValue !== undefined && typeof e.defaultValue !== 'string') return 'defaultValue must be a string'
  if (!hasFrom || e.valueFrom === undefined) return undefined
  const vf = e.valueFrom
  const kinds = [vf.secretKeyRef, vf.configMapKeyRef, vf.objectFieldRef].filter((s) => s !== undefined && s !== null)
  if (kinds.length !== 1) return 'valueFrom must name exactly one of secretKeyRef, configMapKeyRef and objectFieldRef'
  for (const [field, ref] of [
    ['secretKeyRef', vf.secretKeyRef],
    ['configMapKeyRef', vf.configMapKeyRef],
  ] as const) {
    if (ref === undefined || ref === null) continue
    if (!nonEmpty(ref.name) || !nonEmpty(ref.key)) return `valueFrom.${field} needs a name and a key`
  }
  const ofr = vf.objectFieldRef
  if (ofr !== undefined && ofr !== null) {
    if (!nonEmpty(ofr.apiVersion) || !nonEmpty(ofr.kind) || !nonEmpty(ofr.jsonPath)) {
      return 'valueFrom.objectFieldRef needs apiVersion, kind and jsonPath'
    }
    try {
      parseObjectFieldPath(ofr.jsonPath)
    } catch (err) {
      if (err instanceof JsonPathError) return `valueFrom.objectFieldRef.${err.message}`
      throw err
    }
  }
  return undefined
}

function nonEmpty(v: unknown): v is string {
  return typeof v === 'string' && v !== ''
}

async function readSource(sources: ParameterSources, vf: ValueFrom, instanceNamespace: string): Promise<ParamValue> {
  if (vf.secretKeyRef !== undefined) {
    const r = vf.secretKeyRef
    return sources.secretValue(r.namespace || instanceNamespace, r.name, r.key)
  }
  if (vf.configMapKeyRef !== undefined) {
    const r = vf.configMapKeyRef
    return sources.configMapValue(r.namespace || instanceNamespace, r.name, r.key)
  }
  return sources.objectField(vf.objectFieldRef, instanceNamespace)
}

function isSecretSource(vf: ValueFrom): boolean {
  if (vf.secretKeyRef !== undefined) return true
  const o = vf.objectFieldRef
  return o !== undefined && o.kind === 'Secret' && o.apiVersion === 'v1'
}

/** The source in words, e.g. `Secret team-a/db key "password"`. */
export function describeSource(vf: ValueFrom, instanceNamespace: string): string {
  if (vf.secretKeyRef !== undefined) {
    const r = vf.secretKeyRef
    return `Secret ${r.namespace || instanceNamespace}/${r.name} key ${q(r.key)}`
  }
  if (vf.configMapKeyRef !== undefined) {
    const r = vf.configMapKeyRef
    return `ConfigMap ${r.namespace || instanceNamespace}/${r.name} key ${q(r.key)}`
  }
  return describeObjectField(vf.objectFieldRef)
}

function describeObjectField(r: ObjectFieldRef): string {
  const path = `jsonPath ${q(r.jsonPath)}`
  if (r.name !== undefined && r.name !== '') {
    return `${r.apiVersion} ${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name} ${path}`
  }
  return `${r.apiVersion} ${r.kind} list ${r.namespace ? `in namespace ${r.namespace}` : 'in every namespace'} ${path}`
}

function collectSources(
  entries: readonly TemplateParameter[],
  decls: ReadonlyMap<string, TemplateParameterDefinition>,
  instanceNamespace: string,
): ParameterSource[] {
  const out: ParameterSource[] = []
  for (const e of entries) {
    const decl = decls.get(e.name)
    const vf = e.valueFrom
    if (decl === undefined || decl.disableOverride === true || vf === undefined || vf === null) continue
    const parameter = e.name
    if (vf.secretKeyRef) {
      const r = vf.secretKeyRef
      out.push({ parameter, apiVersion: 'v1', kind: 'Secret', namespace: r.namespace || instanceNamespace, name: r.name })
    } else if (vf.configMapKeyRef) {
      const r = vf.configMapKeyRef
      out.push({ parameter, apiVersion: 'v1', kind: 'ConfigMap', namespace: r.namespace || instanceNamespace, name: r.name })
    } else if (vf.objectFieldRef) {
      const r = vf.objectFieldRef
      const ref: { -readonly [K in keyof ParameterSource]: ParameterSource[K] } = { parameter, apiVersion: r.apiVersion, kind: r.kind }
      if (r.namespace) ref.namespace = r.namespace
      else if (r.name) ref.namespace = instanceNamespace
      if (r.name) ref.name = r.name
      out.push(ref)
    }
  }
  return out
}

/** A value from a Secret is never recorded, exposeInStatus or not (the pass says so on ParametersValid). */
function statusEntry(
  decl: TemplateParameterDefinition,
  entry: TemplateParameter | undefined,
  value: ParamValue,
  origin: Origin,
): ResolvedParameter {
  const out: ResolvedParameter = { name: decl.name }
  if (decl.exposeInStatus === true && !origin.secret) out.value = structuredClone(value)
  if (entry?.valueFrom !== undefined) out.valueFrom = structuredClone(entry.valueFrom)
  return out
}

/** A value for a message: quoted and shortened, or only its shape for lists, maps and Secret data. */
function describeValue(value: ParamValue, origin: Origin): string {
  if (origin.secret) return 'a value that is not shown because it comes from a Secret'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'object') return 'a map'
  const chars = Array.from(value)
  const shown = chars.length > MAX_SHOWN ? `${chars.slice(0, MAX_SHOWN).join('')}...` : value
  return q(shown)
}

function q(s: string): string {
  return JSON.stringify(s)
}
