// The outputs step: the Template's outputs into status.outputs and the
// OutputsResolved condition, in every mode (a frozen instance reads recorded
// parameters only). Outputs read rendered objects only, never a Secret's
// content, and what they extract is redacted of values read from Secrets and
// kept within the status bounds (../status-bounds.ts).

import { InstanceConditionType as C, Reason } from '../../api/conditions.ts'
import { objectKey } from '../../api/identity.ts'
import type { Template } from '../../api/template.ts'
import type { TemplateInstance } from '../../api/templateinstance.ts'
import { extractOutputs, outputSourceRefs } from '../../outputs/extract.ts'
import { redactValue, withoutSecretData } from '../../render/redact.ts'
import { boundOutputs, leftOutText, OUTPUT_BOUNDS } from '../status-bounds.ts'
import type { LiveObjects } from '../live.ts'
import type { InstanceRecord } from './record.ts'

export interface OutputsInput {
  readonly template: Template
  readonly inst: TemplateInstance
  readonly frozen: boolean
  /** The parameter values of this render (none when frozen). */
  readonly values: Record<string, unknown>
  readonly rendered: readonly { apiVersion: string; kind: string; name: string; namespace?: string }[]
}

type Ref = { readonly apiVersion: string; readonly kind: string; readonly name: string; readonly namespace?: string }

const keyOf = (r: Ref): string =>
  objectKey({ apiVersion: r.apiVersion, kind: r.kind, name: r.name, ...(r.namespace ? { namespace: r.namespace } : {}) })

export async function refreshOutputs(input: OutputsInput, live: LiveObjects, record: InstanceRecord): Promise<void> {
  const { template, inst, frozen, values, rendered } = input
  const status = record.status
  const outputs = template.spec.outputs ?? []
  if (outputs.length === 0 && status.outputs === undefined) {
    record.set({ type: C.OutputsResolved, status: 'True', reason: Reason.NoOutputs, message: '' })
    return
  }
  const base = {
    outputs,
    context: {
      parameters: frozen ? {} : values,
      instance: { name: inst.metadata?.name ?? '', namespace: inst.metadata?.namespace ?? '', labels: inst.metadata?.labels ?? {} },
    },
    frozen,
    ...(status.resolvedParameters ? { resolvedParameters: status.resolvedParameters } : {}),
    exposedParameters: new Set((template.spec.parameters ?? []).filter((p) => p.exposeInStatus === true).map((p) => p.name)),
    rendered,
  }
  const found = new Map<string, object | undefined>()
  for (const r of outputSourceRefs(base)) {
    const obj = await live
      .get({ apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.name, ...(r.namespace ? { namespace: r.namespace } : {}) } })
      .catch(() => undefined)
    // Outputs never copy a Secret's content into status.
    found.set(keyOf(r), withoutSecretData(obj))
  }
  const out = extractOutputs({ ...base, live: (r) => found.get(keyOf(r)) })
  const bounded = boundOutputs(redactValue(out.values, record.redact))
  if (Object.keys(bounded.outputs).length > 0) status.outputs = bounded.outputs
  else delete status.outputs
  const { condition } = out
  if (bounded.leftOut.length === 0) {
    record.set({ type: C.OutputsResolved, status: condition.status, reason: condition.reason, message: condition.message })
    return
  }
  // A problem of the extraction keeps its reason; the values left out for their size are added to it.
  const tooLarge = `left out of status.outputs, too large for the status: ${leftOutText(bounded.leftOut, OUTPUT_BOUNDS)}`
  record.set({
    type: C.OutputsResolved,
    status: 'False',
    reason: condition.status === 'False' ? condition.reason : Reason.OutputValueTooLarge,
    message: condition.status === 'False' && condition.message ? `${condition.message}; ${tooLarge}` : tooLarge,
  })
}
