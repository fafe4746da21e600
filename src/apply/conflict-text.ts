// What an ownership conflict says about one object: who holds it and the fix
// that fits that holder (docs/ownership-conflicts.md). The annotation adopts
// an object nobody holds; it cannot take one from another instance, and an
// object an earlier instance of the same name left already carries it. Pure;
// the reconciler's condition and `template-sync diff` say the same.

import { describeObject, parseApiVersion } from '../api/identity.ts'
import type { ObjectRef } from '../api/meta.ts'
import { ANNOTATION_INSTANCE_REF, LABEL_INSTANCE_UID } from '../api/names.ts'
import { formatInstanceRef, type Holder, type InstanceRef } from '../api/ownership.ts'

export interface ConflictText {
  /** Who holds the object. */
  readonly what: string
  /** What ends the conflict. */
  readonly fix: string
}

/** The resource argument kubectl takes for a kind: "configmap", "widget.example.com". */
function kubectlResource(ref: ObjectRef): string {
  let group = ''
  try {
    group = parseApiVersion(ref.apiVersion).group
  } catch {
    // A malformed apiVersion never reaches a live object; the kind alone still reads.
  }
  return `${ref.kind.toLowerCase()}${group ? `.${group}` : ''}`
}

export function conflictText(ref: ObjectRef, holder: Holder, instance: InstanceRef): ConflictText {
  const object = describeObject(ref)
  switch (holder.kind) {
    case 'none':
      return {
        what: `${object} exists and is not managed by this TemplateInstance`,
        fix: `Delete or rename the existing object, or annotate it with ${ANNOTATION_INSTANCE_REF}=${formatInstanceRef(instance)} to let this instance adopt it`,
      }
    case 'instance': {
      const other = holder.ref ? `TemplateInstance ${formatInstanceRef(holder.ref)}` : 'another TemplateInstance'
      return {
        what: `${object} is managed by ${other} (uid ${holder.uid})`,
        fix:
          `Two instances cannot render one object: rename it in one of them, or delete ${other}; ` +
          'this instance creates it as soon as that instance no longer holds it',
      }
    }
    case 'earlier': {
      const from = holder.template ? ` from Template ${formatInstanceRef(holder.template)}` : ''
      const label = `kubectl label ${kubectlResource(ref)} ${ref.name}${ref.namespace ? ` -n ${ref.namespace}` : ''} ${LABEL_INSTANCE_UID}-`
      const takeOver = holder.template
        ? `This instance takes it over when it renders from Template ${formatInstanceRef(holder.template)} (spec.templateRef). Otherwise, `
        : ''
      const strict = holder.template
        ? ` (while Template ${formatInstanceRef(holder.template)} is strict, it keeps the object protected from both)`
        : ''
      return {
        what: `${object} was rendered${from} for an earlier TemplateInstance ${formatInstanceRef(instance)} (uid ${holder.uid}), which no longer exists`,
        fix: `${takeOver}${takeOver ? 'hand' : 'Hand'} it over as it is by removing its ${LABEL_INSTANCE_UID} label (${label}), or delete it to have it created again${strict}`,
      }
    }
  }
}

/** The conflicts of one pass in one message: each holder with its fix, at most `max`, then how many more. */
export function conflictsMessage(texts: readonly ConflictText[], max = 3): string {
  const shown = texts.slice(0, max).map((c) => `${c.what}. ${c.fix}.`)
  const more = texts.length - shown.length
  return `${shown.join(' ')}${more > 0 ? ` (${more} more in conflict)` : ''}`
}
