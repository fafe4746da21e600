// Step 1: the Template the instance names. A missing one is reported, and
// the pass ends there (retried later; the webhook keeps judging the rendered
// objects by the Template that rendered them: docs/security.md).

import { type ConditionUpdate, InstanceConditionType as C, Reason } from '../../api/conditions.ts'
import type { Template } from '../../api/template.ts'
import type { TemplateInstance } from '../../api/templateinstance.ts'

export type TemplateLookup = (namespace: string, name: string) => Template | undefined

export function resolveTemplate(inst: TemplateInstance, getTemplate: TemplateLookup): { template?: Template; condition: ConditionUpdate } {
  const ref = inst.spec.templateRef
  const template = getTemplate(ref.namespace, ref.name)
  if (!template) {
    return {
      condition: {
        type: C.TemplateResolved,
        status: 'False',
        reason: Reason.TemplateNotFound,
        message: `Template ${ref.namespace}/${ref.name} not found`,
      },
    }
  }
  return {
    template,
    condition: {
      type: C.TemplateResolved,
      status: 'True',
      reason: Reason.Success,
      message: `using Template ${ref.namespace}/${ref.name} generation ${template.metadata?.generation ?? 0}`,
    },
  }
}

/** Step 3: the Template's target-namespace policy admits the instance's namespace. */
export function namespacePolicy(
  allowed: { readonly allowed: true } | { readonly allowed: false; readonly reason: string; readonly message: string },
): ConditionUpdate {
  return allowed.allowed
    ? { type: C.TargetNamespaceAllowed, status: 'True', reason: Reason.Success, message: '' }
    : { type: C.TargetNamespaceAllowed, status: 'False', reason: allowed.reason, message: allowed.message }
}
