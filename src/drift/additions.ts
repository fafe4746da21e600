// What revert removes that a server-side apply never would: fields another
// writer added to a rendered object that the Template does not render
// (docs/writers.md). Our apply leaves fields of other managers alone, so a
// `kubectl set env`, a label or a `privileged: true` would stay for good. The
// object's managedFields say who owns what: a field of a writer that is
// neither template-sync nor one of the cluster's components, owned by none of
// those, outside ignoreFields, status and the server's own metadata, is an
// addition. They are removed with one JSON patch guarded by the
// resourceVersion (removalPatch). Pure.

import type { IdentifiedObject, ManagedFieldsEntry } from '../api/meta.ts'
import { type JsonPatchOp, testResourceVersion } from '../api/patch.ts'
import { type ComponentTable, writerOfManager } from '../api/writers.ts'
import type { CompiledIgnore } from '../fieldpath/compile.ts'
import { formatPath } from '../fieldpath/format.ts'
import { isIgnoredPath } from '../fieldpath/match.ts'
import { toPointer } from '../fieldpath/pointer.ts'
import type { PathStep } from '../fieldpath/types.ts'
import { isOwnApplyEntry } from './apply-noop.ts'
import { type FieldSet, fieldsOnlyIn } from './field-set.ts'
import { SERVER_MANAGED_METADATA } from './server-managed.ts'

/** One field another writer added. */
export interface Addition {
  /** ignoreFields syntax, for messages. */
  readonly path: string
  /** JSON pointer into the live object. */
  readonly pointer: string
  readonly steps: readonly PathStep[]
  /** The field managers that own it. */
  readonly managers: readonly string[]
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** An entry of the main resource (a status write owns status only, which is never drift). */
const mainResource = (e: ManagedFieldsEntry): boolean => (e.subresource ?? '') === ''

/** Not drift by definition: status, and the metadata the API server writes itself. */
function neverDrift(steps: readonly PathStep[]): boolean {
  if (steps[0] === 'status') return true
  return steps[0] === 'metadata' && typeof steps[1] === 'string' && SERVER_MANAGED_METADATA.includes(steps[1])
}

/**
 * The additions of other writers in `live`, against `rendered` (the object as
 * the Template renders it). Empty when the object has no Apply entry of ours:
 * without it, what we own cannot be told.
 */
export function foreignAdditions(
  live: IdentifiedObject,
  rendered: IdentifiedObject,
  components: ComponentTable,
  ignore: CompiledIgnore,
): Addition[] {
  const entries = (live.metadata.managedFields ?? []).filter(mainResource)
  if (!entries.some((e) => isOwnApplyEntry(e))) return []
  const foreign = entries.filter((e) => writerOfManager(e.manager, components) === 'other' && isObj(e.fieldsV1))
  if (foreign.length === 0) return []
  const kept = entries.flatMap((e) =>
    writerOfManager(e.manager, components) !== 'other' && isObj(e.fieldsV1) ? [e.fieldsV1 as FieldSet] : [],
  )
  const byPointer = new Map<string, Addition>()
  for (const e of foreign) {
    for (const f of fieldsOnlyIn(e, kept, live, rendered)) {
      if (neverDrift(f.steps) || isIgnoredPath(ignore, f.steps)) continue
      const pointer = toPointer(f.steps)
      const seen = byPointer.get(pointer)
      const managers = seen === undefined ? [f.manager] : [...new Set([...seen.managers, f.manager])]
      byPointer.set(pointer, { path: formatPath(f.steps), pointer, steps: f.steps, managers })
    }
  }
  // One addition inside another (two writers, one map) goes with the outer one.
  const all = [...byPointer.values()]
  return all.filter((a) => !all.some((b) => b !== a && a.pointer.startsWith(`${b.pointer}/`)))
}

/** Later positions first, so that removing one list item does not move the next one to remove. */
function compareSteps(a: readonly PathStep[], b: readonly PathStep[]): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a[i] as PathStep
    const y = b[i] as PathStep
    if (x === y) continue
    if (typeof x === 'number' && typeof y === 'number') return y - x
    return String(y) < String(x) ? -1 : 1
  }
  return b.length - a.length
}

/** One JSON patch that removes the additions from exactly the version they were seen in. */
export function removalPatch(additions: readonly Addition[], resourceVersion: string | undefined): JsonPatchOp[] {
  const ordered = [...additions].sort((a, b) => compareSteps(a.steps, b.steps))
  return [testResourceVersion(resourceVersion), ...ordered.map((a): JsonPatchOp => ({ op: 'remove', path: a.pointer }))]
}

/** The writers of the additions, for messages: "kubectl-edit", "kubectl-edit and kubectl-patch". */
export function additionWriters(additions: readonly Addition[]): string[] {
  return [...new Set(additions.flatMap((a) => a.managers))]
}
