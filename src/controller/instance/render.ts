// Step 4: parameters and render, memoized on their inputs (the Template's and
// the instance's generation, the instance's labels, the parameter sources'
// epoch), so that drift events, which change none of them, do not read
// parameter sources again; a render that ran into the time limit is
// remembered on the same key and not run again. Sets ParametersValid and
// Rendered, the redactor of the values read from Secrets, and
// status.resolvedParameters (exposed values within the status bounds:
// ../status-bounds.ts) and resolvedTemplateRef. A render naming a kind the API
// server does not serve ends the pass here (Applied=False/KindNotFound), and
// is not memoized: the next pass asks again.

import { createHash } from 'node:crypto'
import { type ConditionUpdate, InstanceConditionType as C, Reason } from '../../api/conditions.ts'
import { collectionKey } from '../../api/identity.ts'
import type { IdentifiedObject, SourceRef } from '../../api/meta.ts'
import type { SyncMode } from '../../api/names.ts'
import type { Template } from '../../api/template.ts'
import type { TemplateInstance } from '../../api/templateinstance.ts'
import { redactor } from '../../render/redact.ts'
import type { KindRef, RenderPipeline } from '../pipeline.ts'
import { kindNotFound } from '../report.ts'
import { boundParameters, type LeftOut, leftOutText, PARAMETER_BOUNDS } from '../status-bounds.ts'
import type { WatchRegistry } from '../registry.ts'
import type { InstanceMemory } from './memory.ts'
import type { InstanceRecord } from './record.ts'
import type { ReconcileResult } from './types.ts'

export interface RenderStepDeps {
  readonly pipeline: RenderPipeline
  /** Parameter-source watches: the instance holds the ones its parameters read (none under off). */
  readonly sources: WatchRegistry
}

export type Rendered =
  | { readonly ok: true; readonly objects: readonly IdentifiedObject[]; readonly values: Record<string, unknown> }
  | { readonly ok: false; readonly result?: ReconcileResult; readonly unserved?: readonly KindRef[] }

function hashOf(v: unknown): string {
  return createHash('sha256').update(JSON.stringify(v)).digest('base64url')
}

export async function renderObjects(
  deps: RenderStepDeps,
  input: { readonly key: string; readonly inst: TemplateInstance; readonly template: Template; readonly mode: SyncMode },
  memory: InstanceMemory,
  record: InstanceRecord,
): Promise<Rendered> {
  const { key, inst, template, mode } = input
  const memoKey = hashOf([
    template.metadata?.uid,
    template.metadata?.generation,
    inst.metadata?.uid,
    inst.metadata?.generation,
    inst.metadata?.labels ?? {},
    memory.sourceEpoch,
  ])
  let memo = memory.renderMemo?.key === memoKey ? memory.renderMemo : undefined
  if (memo === undefined) {
    const params = await deps.pipeline.resolveParameters(template, inst)
    deps.sources.setOwnerKeys(key, mode === 'off' ? [] : sourceWatchKeys(params.sources))
    if (!params.ok) {
      record.set({ type: C.ParametersValid, status: 'False', reason: params.reason, message: params.message })
      return { ok: false }
    }
    const bounded = boundParameters(params.resolved)
    record.status.resolvedParameters = bounded.resolved
    record.redact = redactor(params.secretValues)
    const timedOut = memory.renderTimeout?.key === memoKey ? memory.renderTimeout : undefined
    const rendered =
      timedOut === undefined ? await deps.pipeline.render(template, inst, params.values) : { ...timedOut, ok: false as const }
    if (!rendered.ok) {
      if (rendered.reason === Reason.RenderTimeout)
        memory.renderTimeout = { key: memoKey, reason: rendered.reason, message: rendered.message }
      record.set(parametersResolved(params.withheld, bounded.leftOut))
      record.set({ type: C.Rendered, status: 'False', reason: rendered.reason, message: rendered.message })
      return rendered.retryAfterMs === undefined ? { ok: false } : { ok: false, result: { requeueAfterMs: rendered.retryAfterMs } }
    }
    if (rendered.unserved !== undefined && rendered.unserved.length > 0) {
      record.set(parametersResolved(params.withheld, bounded.leftOut))
      record.set(renderedCondition(rendered.objects.length))
      record.report(kindNotFound(rendered.unserved))
      return { ok: false, unserved: rendered.unserved }
    }
    // A copy that owns its strings: a value the YAML parser cut out of the
    // rendered text is a slice that keeps the whole text alive for as long
    // as the memo holds the object (docs/reconciler-memory.md).
    memo = {
      key: memoKey,
      objects: structuredClone(rendered.objects),
      values: params.values,
      resolved: bounded.resolved,
      sources: params.sources,
      withheld: params.withheld,
      leftOut: bounded.leftOut,
      redact: record.redact,
    }
    memory.renderMemo = memo
    memory.renderTimeout = undefined
  }
  record.status.resolvedParameters = memo.resolved
  record.redact = memo.redact
  record.set(parametersResolved(memo.withheld, memo.leftOut))
  record.set(renderedCondition(memo.objects.length))
  const ref = inst.spec.templateRef
  record.status.resolvedTemplateRef = {
    name: ref.name,
    namespace: ref.namespace,
    ...(template.metadata?.generation !== undefined ? { generation: template.metadata.generation } : {}),
  }
  return { ok: true, objects: memo.objects, values: memo.values }
}

function renderedCondition(objects: number): ConditionUpdate {
  return { type: C.Rendered, status: 'True', reason: Reason.Success, message: `${objects} object(s) rendered` }
}

/**
 * ParametersValid after every value resolved; names what exposeInStatus could
 * not record: values too large for the status, values read from Secrets.
 */
export function parametersResolved(withheld: readonly string[], leftOut: readonly LeftOut[]): ConditionUpdate {
  if (withheld.length === 0 && leftOut.length === 0)
    return { type: C.ParametersValid, status: 'True', reason: Reason.AllParametersResolved, message: '' }
  const parts: string[] = []
  if (leftOut.length > 0)
    parts.push(
      `not recorded in status.resolvedParameters despite exposeInStatus, too large for the status: ${leftOutText(leftOut, PARAMETER_BOUNDS)}; ` +
        'the values are used in the render all the same',
    )
  if (withheld.length > 0)
    parts.push(
      `not recorded in status.resolvedParameters despite exposeInStatus: ${withheld.map((n) => JSON.stringify(n)).join(', ')}; ` +
        'values read from Secrets are never written to status',
    )
  return {
    type: C.ParametersValid,
    status: 'True',
    reason: leftOut.length > 0 ? Reason.ExposedValueTooLarge : Reason.SecretNotExposed,
    message: parts.join('. '),
  }
}

/** Watch keys of parameter sources; a source no API can serve (an invalid apiVersion) has nothing to watch. */
export function sourceWatchKeys(sources: readonly SourceRef[]): string[] {
  return sources.flatMap((s) => {
    try {
      return [collectionKey(s.apiVersion, s.kind, s.namespace)]
    } catch {
      return []
    }
  })
}
