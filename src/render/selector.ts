// metav1.LabelSelector matching. All terms are ANDed; an empty selector
// matches everything (Kubernetes' rule, so `selector: {}` in a Template admits
// every namespace). The selector arrives from a custom resource, so its shape
// is checked here rather than trusted: a malformed selector is an error the
// caller reports, never a silent "no match".

import type { LabelSelector } from '../api/meta.ts'

export class LabelSelectorError extends Error {
  override readonly name = 'LabelSelectorError'
  readonly code = 'LABEL_SELECTOR_INVALID'
}

export type SelectorValidation = { readonly ok: true } | { readonly ok: false; readonly message: string }

const OPERATORS: ReadonlySet<string> = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist'])
const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/

/** A label key: optional DNS-subdomain prefix (at most 253) and `/`, then a name of at most 63 characters. */
function keyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string') return 'must be a string'
  const slash = key.indexOf('/')
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined
  const name = slash >= 0 ? key.slice(slash + 1) : key
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    return 'prefix must be a DNS subdomain'
  }
  if (name.length === 0 || name.length > 63 || !NAME_PART.test(name)) {
    return 'name must be at most 63 alphanumeric characters, "-", "_" or ".", starting and ending alphanumeric'
  }
  return undefined
}

/** A label value: empty, or at most 63 characters like a key's name part. */
function valueProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string'
  if (value === '') return undefined
  if (value.length > 63 || !NAME_PART.test(value)) {
    return 'must be at most 63 alphanumeric characters, "-", "_" or ".", starting and ending alphanumeric'
  }
  return undefined
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** Why the selector is not a valid metav1.LabelSelector, in words that name the offending term. */
export function validateLabelSelector(selector: unknown): SelectorValidation {
  const fail = (message: string): SelectorValidation => ({ ok: false, message })
  if (!isRecord(selector)) return fail('selector must be a mapping')
  const { matchLabels, matchExpressions } = selector
  if (matchLabels !== undefined && matchLabels !== null) {
    if (!isRecord(matchLabels)) return fail('matchLabels must be a mapping of label keys to values')
    for (const [key, value] of Object.entries(matchLabels)) {
      const k = keyProblem(key)
      if (k !== undefined) return fail(`matchLabels key ${JSON.stringify(key)}: ${k}`)
      const v = valueProblem(value)
      if (v !== undefined) return fail(`matchLabels[${JSON.stringify(key)}] value ${JSON.stringify(value)}: ${v}`)
    }
  }
  if (matchExpressions !== undefined && matchExpressions !== null) {
    if (!Array.isArray(matchExpressions)) return fail('matchExpressions must be a list')
    for (const [i, expr] of matchExpressions.entries()) {
      const where = `matchExpressions[${i}]`
      if (!isRecord(expr)) return fail(`${where} must be a mapping with key, operator and values`)
      const k = keyProblem(expr['key'])
      if (k !== undefined) return fail(`${where}.key ${JSON.stringify(expr['key'])}: ${k}`)
      const op = expr['operator']
      if (typeof op !== 'string' || !OPERATORS.has(op)) {
        return fail(`${where}.operator ${JSON.stringify(op)} is not one of In, NotIn, Exists, DoesNotExist`)
      }
      const values = expr['values'] ?? []
      if (!Array.isArray(values)) return fail(`${where}.values must be a list of strings`)
      if ((op === 'In' || op === 'NotIn') && values.length === 0) {
        return fail(`${where}: operator ${op} needs at least one value`)
      }
      if ((op === 'Exists' || op === 'DoesNotExist') && values.length > 0) {
        return fail(`${where}: operator ${op} takes no values`)
      }
      for (const [j, value] of values.entries()) {
        const v = valueProblem(value)
        if (v !== undefined) return fail(`${where}.values[${j}] ${JSON.stringify(value)}: ${v}`)
      }
    }
  }
  return { ok: true }
}

/**
 * Whether `labels` satisfy `selector`. Throws LabelSelectorError for a
 * selector that validateLabelSelector rejects (an unknown operator, In
 * without values, ...).
 */
export function matchesLabelSelector(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  const valid = validateLabelSelector(selector)
  if (!valid.ok) throw new LabelSelectorError(`invalid label selector: ${valid.message}`)
  const has = (key: string): boolean => Object.hasOwn(labels, key)
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (!has(key) || labels[key] !== value) return false
  }
  for (const expr of selector.matchExpressions ?? []) {
    const present = has(expr.key)
    const values = expr.values ?? []
    switch (expr.operator) {
      case 'In':
        if (!present || !values.includes(labels[expr.key] ?? '')) return false
        break
      case 'NotIn':
        // Kubernetes: a missing key satisfies NotIn.
        if (present && values.includes(labels[expr.key] ?? '')) return false
        break
      case 'Exists':
        if (!present) return false
        break
      case 'DoesNotExist':
        if (present) return false
        break
    }
  }
  return true
}
