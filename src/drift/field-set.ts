// Field sets of managedFields (fieldsV1) read against the object they
// describe. A set names fields by `f:<name>`, list items by `k:<keys as JSON>`
// (lists of maps with merge keys), `v:<value as JSON>` (sets of scalars) or
// `i:<index>`, and `.` the map or list itself; an empty set under a member
// means the member's whole value. Pure.
//
// Two questions are asked of them (docs/writers.md):
//   - does a change at a concrete path touch a field our Apply entry sets?
//     (the webhook lets the cluster's components write only fields the
//     Template does not render);
//   - which fields did another writer add that our render does not have?
//     (revert removes them).

import type { ManagedFieldsEntry } from '../api/meta.ts'
import type { PathStep } from '../fieldpath/types.ts'

export type FieldSet = Readonly<Record<string, unknown>>

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function asSet(v: unknown): FieldSet | undefined {
  return isObj(v) ? v : undefined
}

/** A set member with nothing under it: the whole value is the owner's. */
function isWhole(set: FieldSet): boolean {
  for (const k in set) if (k !== '.') return false
  return true
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** True when the list item matches a `k:` member: every key field is there with the same value. */
function matchesKeys(item: unknown, keys: unknown): boolean {
  if (!isObj(item) || !isObj(keys)) return false
  for (const [k, v] of Object.entries(keys)) if (item[k] !== v) return false
  return true
}

/** The member of `set` that names `item` (at `index` of its list), if any. */
export function memberOfItem(set: FieldSet, item: unknown, index: number): string | undefined {
  for (const m of Object.keys(set)) {
    if (m.startsWith('k:')) {
      if (matchesKeys(item, parseJson(m.slice(2)))) return m
    } else if (m.startsWith('v:')) {
      const v = parseJson(m.slice(2))
      if (v !== undefined && JSON.stringify(v) === JSON.stringify(item)) return m
    } else if (m === `i:${index}`) {
      return m
    }
  }
  return undefined
}

/** The concrete step of a member in `value` (a map or a list), or undefined when the object has no such field. */
export function stepOfMember(member: string, value: unknown): PathStep | undefined {
  if (member.startsWith('f:')) {
    const name = member.slice(2)
    return isObj(value) && Object.hasOwn(value, name) && value[name] !== undefined ? name : undefined
  }
  if (!Array.isArray(value)) return undefined
  if (member.startsWith('i:')) {
    const i = Number(member.slice(2))
    return Number.isInteger(i) && i >= 0 && i < value.length ? i : undefined
  }
  if (member.startsWith('k:')) {
    const keys = parseJson(member.slice(2))
    const i = value.findIndex((item) => matchesKeys(item, keys))
    return i >= 0 ? i : undefined
  }
  if (member.startsWith('v:')) {
    const want = JSON.stringify(parseJson(member.slice(2)))
    const i = value.findIndex((item) => JSON.stringify(item) === want)
    return i >= 0 ? i : undefined
  }
  return undefined
}

/** The value at one step of a map or list. */
function child(value: unknown, step: PathStep): unknown {
  if (typeof step === 'number') return Array.isArray(value) ? value[step] : undefined
  return isObj(value) && Object.hasOwn(value, step) ? value[step] : undefined
}

/**
 * Whether a change at `steps` touches a field of `set`: the path lies inside
 * a value the set owns whole, or is a field or container the set names, with
 * a member that the two objects do not hold alike. `before` and `after` are
 * the object on both sides of the change; list items are found in them by
 * their position along the path.
 */
export function touchesSet(set: FieldSet, steps: readonly PathStep[], before: unknown, after: unknown): boolean {
  let node: FieldSet = set
  let b = before
  let a = after
  for (const step of steps) {
    if (isWhole(node) && node !== set) return true
    let member: string | undefined
    if (typeof step === 'number') {
      member = memberOfItem(node, child(b, step), step) ?? memberOfItem(node, child(a, step), step)
    } else {
      member = Object.hasOwn(node, `f:${step}`) ? `f:${step}` : undefined
    }
    if (member === undefined) return false
    const next = asSet(node[member])
    if (next === undefined) return true
    node = next
    b = child(b, step)
    a = child(a, step)
  }
  return !membersHeldAlike(node, b, a)
}

/** Every member of the set is in both values with the same content (a list may gain or lose items the set does not name). */
function membersHeldAlike(set: FieldSet, before: unknown, after: unknown): boolean {
  if (isWhole(set)) return JSON.stringify(before) === JSON.stringify(after)
  for (const m of Object.keys(set)) {
    if (m === '.') continue
    const sb = stepOfMember(m, before)
    const sa = stepOfMember(m, after)
    if (sb === undefined || sa === undefined) {
      if (sb !== sa) return false
      continue
    }
    const sub = asSet(set[m]) ?? {}
    if (!membersHeldAlike(sub, child(before, sb), child(after, sa))) return false
  }
  return true
}

/** One field another writer added: where it is in the object, and who owns it. */
export interface ForeignField {
  readonly steps: readonly PathStep[]
  readonly manager: string
}

/**
 * The top-most fields of `obj` that `entry` owns, that none of `kept` owns,
 * and that `rendered` (the object as the Template renders it) does not have:
 * fields its writer added. A field the Template renders is never one, even
 * when the writer took it over by changing its value (that is drift of a
 * rendered field, put back by an apply). A field the object no longer has is
 * skipped.
 */
export function fieldsOnlyIn(entry: ManagedFieldsEntry, kept: readonly FieldSet[], obj: unknown, rendered?: unknown): ForeignField[] {
  const set = asSet(entry.fieldsV1)
  if (set === undefined) return []
  const out: ForeignField[] = []
  const walk = (node: FieldSet, keptNodes: readonly FieldSet[], value: unknown, renderedValue: unknown, steps: PathStep[]): void => {
    for (const m of Object.keys(node)) {
      if (m === '.') continue
      const step = stepOfMember(m, value)
      if (step === undefined) continue
      const inner = child(value, step)
      const renderedStep = stepOfMember(m, renderedValue)
      const renderedInner = renderedStep === undefined ? undefined : child(renderedValue, renderedStep)
      const keptHere = keptNodes.flatMap((k) => {
        const km = typeof step === 'number' ? memberOfItem(k, inner, step) : Object.hasOwn(k, m) ? m : undefined
        const sub = km === undefined ? undefined : asSet(k[km])
        return sub === undefined ? [] : [sub]
      })
      const sub = asSet(node[m])
      steps.push(step)
      if (keptHere.length === 0 && renderedStep === undefined) out.push({ steps: [...steps], manager: entry.manager ?? '' })
      else if (!keptHere.some(isWhole) && sub !== undefined && !isWhole(sub)) walk(sub, keptHere, inner, renderedInner, steps)
      steps.pop()
    }
  }
  walk(set, kept, obj, rendered, [])
  return out
}
