// A local proof that our server-side apply of an intent would change nothing
// the dry-run comparison reports, so that a reconciler without a memory of its
// last applies (after a restart) need not ask the API server per object.
// Pure and conservative: true only when it is certain; anything unusual (list
// items of maps, null, a second entry of ours, another apiVersion) is false, and the
// caller asks the dry-run as before. docs/restart-without-dry-runs.md says why
// the two rules below suffice.
//
// A forced apply by our field manager (a) sets every field of the intent and
// (b) removes the fields our Apply entry owned that the intent no longer
// holds. So it changes nothing when
//   1. every leaf of the intent is in the live object with an equal value, and
//   2. every field of our Apply entry (same apiVersion) is still in the intent.

import type { IdentifiedObject, ManagedFieldsEntry } from '../api/meta.ts'
import { FIELD_MANAGER } from '../api/names.ts'

type Obj = Record<string, unknown>

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

// Carried by the lookup itself (the live object was found by them) or put on by the reader.
const IDENTITY_TOP_LEVEL: ReadonlySet<string> = new Set(['apiVersion', 'kind'])

/** True when applying `intent` as `manager` (force) certainly leaves `live` as it is in every field compare reads. */
export function applyChangesNothing(intent: IdentifiedObject, live: IdentifiedObject, manager: string = FIELD_MANAGER): boolean {
  const entry = ownApplyEntry(live, manager)
  if (entry === undefined || entry.apiVersion !== intent.apiVersion || !isObj(entry.fieldsV1)) return false
  const i = intent as unknown as Obj
  const l = live as unknown as Obj
  for (const k of Object.keys(i)) {
    if (IDENTITY_TOP_LEVEL.has(k) || i[k] === undefined) continue
    if (!Object.hasOwn(l, k) || !holds(l[k], i[k])) return false
  }
  return keepsOwned(entry.fieldsV1, i)
}

/** Our manager's one Apply entry on the main resource; undefined when there is none or more than one. */
export function ownApplyEntry(obj: IdentifiedObject, manager: string = FIELD_MANAGER): ManagedFieldsEntry | undefined {
  let found: ManagedFieldsEntry | undefined
  for (const e of obj.metadata.managedFields ?? []) {
    if (!isOwnApplyEntry(e, manager)) continue
    if (found !== undefined) return undefined
    found = e
  }
  return found
}

export function isOwnApplyEntry(e: ManagedFieldsEntry, manager: string = FIELD_MANAGER): boolean {
  return e.manager === manager && e.operation === 'Apply' && (e.subresource ?? '') === ''
}

/** Rule 1: `live` holds `want` (a value of the intent): every leaf there and equal; lists only of scalars, exactly equal. */
function holds(live: unknown, want: unknown): boolean {
  if (Array.isArray(want)) {
    if (!Array.isArray(live) || live.length !== want.length) return false
    for (let n = 0; n < want.length; n++) if (!isScalar(want[n]) || want[n] !== live[n]) return false
    return true
  }
  if (isObj(want)) {
    if (!isObj(live)) return false
    for (const k of Object.keys(want)) {
      const w = want[k]
      if (w === undefined) continue
      if (!Object.hasOwn(live, k) || !holds(live[k], w)) return false
    }
    return true
  }
  // null asks the server to remove a field: not a value to hold.
  return isScalar(want) && want === live
}

function isScalar(v: unknown): boolean {
  const t = typeof v
  return t === 'string' || t === 'boolean' || t === 'bigint' || (t === 'number' && !Number.isNaN(v))
}

/**
 * Rule 2: every field of our entry's fieldsV1 set is still in `at` (the
 * intent, or a map inside it). `f:` is a field by name; `.` is the map or list
 * itself, present since we stand in it. Of list items only `v:` (an item of a
 * set of scalars, such as metadata.finalizers) can be checked; `k:` and `i:`
 * (items of lists of maps, positions) cannot.
 */
function keepsOwned(set: Obj, at: Obj): boolean {
  for (const [k, sub] of Object.entries(set)) {
    if (k === '.') continue
    if (!k.startsWith('f:') || !isObj(sub)) return false
    const name = k.slice(2)
    if (!Object.hasOwn(at, name) || at[name] === undefined) return false
    if (Object.keys(sub).length === 0) continue
    const child = at[name]
    if (Array.isArray(child) ? !keepsOwnedItems(sub, child) : !isObj(child) || !keepsOwned(sub, child)) return false
  }
  return true
}

/** The `v:` items of a set we own are all still in the intent's list. */
function keepsOwnedItems(set: Obj, list: readonly unknown[]): boolean {
  for (const [k, sub] of Object.entries(set)) {
    if (k === '.') continue
    if (!k.startsWith('v:') || !isObj(sub) || Object.keys(sub).length > 0) return false
    let value: unknown
    try {
      value = JSON.parse(k.slice(2))
    } catch {
      return false
    }
    if (!isScalar(value) || !list.includes(value)) return false
  }
  return true
}
