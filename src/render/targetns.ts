// spec.targetNamespaces: which consumer namespaces may instantiate a Template.
// Pure: the caller fetches the Namespace's labels (only needed when the
// Template has a selector) and turns the verdict into the
// TargetNamespaceAllowed condition.

import type { Template } from '../api/template.ts'
import { matchesLabelSelector, validateLabelSelector } from './selector.ts'

export type TargetNamespaceVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly reason: 'NamespaceNotPermitted'; readonly message: string }

/**
 * Rules, in order:
 * - no policy (or a policy with neither literals nor selector): only the
 *   Template's own namespace;
 * - `explicit.allow.literal` containing `*` admits every namespace, otherwise
 *   it admits the namespaces it lists;
 * - `selector` admits a namespace whose labels match it;
 * - a namespace admitted by either list or selector is allowed (OR).
 *
 * `namespaceLabels` undefined means the Namespace could not be read; a
 * selector then matches nothing, while literals still apply.
 */
export function checkTargetNamespace(
  template: Pick<Template, 'metadata' | 'spec'>,
  instanceNamespace: string,
  namespaceLabels: Readonly<Record<string, string>> | undefined,
): TargetNamespaceVerdict {
  const templateNamespace = template.metadata?.namespace ?? ''
  const policy = template.spec.targetNamespaces
  const literals = policy?.explicit?.allow?.literal ?? []
  const selector = policy?.selector ?? undefined
  const deny = (detail?: string): TargetNamespaceVerdict => ({
    allowed: false,
    reason: 'NamespaceNotPermitted',
    message:
      `Namespace ${instanceNamespace} is not permitted to instantiate Template ` +
      `${templateNamespace}/${template.metadata?.name ?? ''}` +
      `${detail === undefined ? '' : ` (${detail})`}. Check the Template's spec.targetNamespaces`,
  })

  // An empty policy object says nothing, so it keeps the default rather than admitting nobody.
  if (literals.length === 0 && selector === undefined) {
    return instanceNamespace === templateNamespace ? { allowed: true } : deny()
  }
  if (literals.includes('*') || literals.includes(instanceNamespace)) return { allowed: true }
  if (selector === undefined) return deny()
  const valid = validateLabelSelector(selector)
  if (!valid.ok) return deny(`spec.targetNamespaces.selector is invalid: ${valid.message}`)
  if (namespaceLabels === undefined) return deny('its labels could not be read')
  return matchesLabelSelector(selector, namespaceLabels) ? { allowed: true } : deny()
}
