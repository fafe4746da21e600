// Which rendered objects an output reads. Sources are the instance's rendered
// objects only, never arbitrary cluster objects, and never Secrets: copying
// Secret data into status would show it to anyone who can read the instance.

import { Reason } from '../api/conditions.ts'
import type { TemplateOutput } from '../api/template.ts'
import { templateScope, type TemplateScope } from './context.ts'
import { OutputTemplateError, parseTemplate } from './template.ts'
import { objectKey } from '../api/identity.ts'
import type { ObjectRef } from '../api/meta.ts'
import type { ExtractInput, OutputFailureReason } from './types.ts'
import { renderTemplate } from './values.ts'

export interface SourceFailure {
  readonly reason: OutputFailureReason
  readonly message: string
}

export type SourceResolution =
  | { readonly ok: true; readonly mode: 'from'; readonly ref: ObjectRef }
  | {
      readonly ok: true
      readonly mode: 'fromAll'
      /** Every rendered object of the kind (and namespace); the selector is applied to the live objects later. */
      readonly refs: readonly ObjectRef[]
      /** The source in words, for messages. */
      readonly describe: string
    }
  | ({ readonly ok: false } & SourceFailure)

export function describeRef(ref: ObjectRef): string {
  return `${ref.apiVersion} ${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`
}

export function isSecretKind(apiVersion: string, kind: string): boolean {
  return apiVersion === 'v1' && kind === 'Secret'
}

/** Label for messages: `output "endpoint"`. */
export function outputLabel(output: TemplateOutput): string {
  return `output ${JSON.stringify(output.name)}`
}

export function resolveSource(
  output: TemplateOutput,
  scope: TemplateScope,
  instanceNamespace: string,
  rendered: readonly ObjectRef[],
): SourceResolution {
  const label = outputLabel(output)
  const fail = (reason: OutputFailureReason, message: string): SourceResolution => ({ ok: false, reason, message: `${label}: ${message}` })
  const hasFrom = output.from !== undefined && output.from !== null
  const hasAll = output.fromAll !== undefined && output.fromAll !== null
  if (hasFrom === hasAll) return fail(Reason.OutputExtractionFailed, 'set exactly one of from and fromAll')
  if (hasAll && output.forEach !== undefined && output.forEach !== null) {
    return fail(Reason.OutputExtractionFailed, 'forEach is only allowed with from')
  }
  const source = (hasFrom ? output.from : output.fromAll) as { apiVersion: string; kind: string }
  const which = hasFrom ? 'from' : 'fromAll'
  if (isSecretKind(source.apiVersion, source.kind)) {
    return fail(
      Reason.OutputExtractionFailed,
      `${which} names a Secret; Secret sources are refused because status.outputs is readable by anyone who can read the instance`,
    )
  }
  if (output.from !== undefined && output.from !== null) {
    const from = output.from
    const name = renderName(from.name, `${which}.name`, scope)
    if (!name.ok) return fail(name.reason, name.message)
    const explicit = from.namespace !== undefined && from.namespace !== ''
    const ns = explicit ? renderName(from.namespace ?? '', `${which}.namespace`, scope) : { ok: true as const, text: instanceNamespace }
    if (!ns.ok) return fail(ns.reason, ns.message)
    const same = (r: ObjectRef): boolean => r.apiVersion === from.apiVersion && r.kind === from.kind && r.name === name.text
    // Without from.namespace a cluster-scoped object (rendered without a namespace) matches too.
    const ref =
      rendered.find((r) => same(r) && (r.namespace ?? '') === ns.text) ??
      (explicit ? undefined : rendered.find((r) => same(r) && !r.namespace))
    if (ref === undefined) {
      const wanted = describeRef({ apiVersion: from.apiVersion, kind: from.kind, name: name.text, namespace: ns.text })
      return fail(Reason.OutputSourceNotFound, `from names ${wanted}, which is not among the objects this instance renders`)
    }
    return { ok: true, mode: 'from', ref }
  }
  const all = output.fromAll as NonNullable<TemplateOutput['fromAll']>
  let namespace: string | undefined
  if (all.namespace !== undefined && all.namespace !== '') {
    const ns = renderName(all.namespace, 'fromAll.namespace', scope)
    if (!ns.ok) return fail(ns.reason, ns.message)
    namespace = ns.text
  }
  const refs = rendered.filter(
    (r) => r.apiVersion === all.apiVersion && r.kind === all.kind && (namespace === undefined || (r.namespace ?? '') === namespace),
  )
  const describe = `fromAll ${all.apiVersion} ${all.kind} ${namespace === undefined ? 'in every rendered namespace' : `in namespace ${namespace}`}`
  return { ok: true, mode: 'fromAll', refs, describe }
}

type NameResult = { readonly ok: true; readonly text: string } | ({ readonly ok: false } & SourceFailure)

/** A source name or namespace from its template over `{parameters, instance}`. */
function renderName(template: string, what: string, scope: TemplateScope): NameResult {
  const where = `${what} template ${JSON.stringify(template)}`
  let parts
  try {
    parts = parseTemplate(template)
  } catch (err) {
    if (err instanceof OutputTemplateError)
      return { ok: false, reason: Reason.OutputExtractionFailed, message: `${where} is invalid: ${err.message}` }
    throw err
  }
  const unavailable = scope.unavailable(parts)
  if (unavailable !== undefined)
    return { ok: false, reason: Reason.OutputParameterNotExposed, message: `${where} cannot be resolved: ${unavailable}` }
  const r = renderTemplate(parts, scope.names)
  if (!r.ok)
    return { ok: false, reason: Reason.OutputExtractionFailed, message: `${where}: ${r.unmatched} matched nothing in the render context` }
  if (r.text === '') return { ok: false, reason: Reason.OutputExtractionFailed, message: `${where} resolved to an empty string` }
  return { ok: true, text: r.text }
}

/**
 * The rendered objects that extractOutputs may ask `live` for, in render
 * order and without duplicates: what a caller fetches (or watches) first.
 * Outputs that cannot be resolved and Secret sources contribute nothing.
 */
export function outputSourceRefs(input: Omit<ExtractInput, 'live'>): ObjectRef[] {
  const scope = templateScope(input)
  const wanted = new Set<string>()
  for (const output of input.outputs) {
    const r = resolveSource(output, scope, input.context.instance.namespace, input.rendered)
    if (!r.ok) continue
    for (const ref of r.mode === 'from' ? [r.ref] : r.refs) wanted.add(objectKey(ref))
  }
  const out: ObjectRef[] = []
  for (const r of input.rendered) {
    const key = objectKey(r)
    if (!wanted.delete(key)) continue
    out.push(r)
  }
  return out
}
