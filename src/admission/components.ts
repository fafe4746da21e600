// A write by one of the cluster's components to a strict object (docs/writers.md):
// it may change what the Template does not render, and nothing it renders.
// What the Template renders is what our Apply entry in the stored object's
// managedFields owns; those are parsed here, on this path only. Without that
// entry nothing can be told apart, and the write is judged as anyone's.

import type { KubeObject } from '../api/meta.ts'
import { FIELD_MANAGER, PROTECTED_ANNOTATIONS, PROTECTED_LABELS } from '../api/names.ts'
import { isOwnApplyEntry } from '../drift/apply-noop.ts'
import { compare } from '../drift/compare.ts'
import { type FieldSet, touchesSet } from '../drift/field-set.ts'
import type { CompiledIgnore } from '../fieldpath/compile.ts'
import { pointerTokens } from '../fieldpath/pointer.ts'
import type { PathStep } from '../fieldpath/types.ts'
import { storedManagedFields } from './managed-fields.ts'

/** Labels and annotations that only template-sync may write, whoever asks. */
function isOwnershipKey(steps: readonly PathStep[]): boolean {
  if (steps[0] !== 'metadata' || typeof steps[2] !== 'string') return false
  if (steps[1] === 'labels') return PROTECTED_LABELS.includes(steps[2])
  return steps[1] === 'annotations' && PROTECTED_ANNOTATIONS.includes(steps[2])
}

/** A JSON pointer as path steps, with list positions as numbers (found by walking the object). */
function stepsOf(pointer: string, obj: unknown): PathStep[] {
  const steps: PathStep[] = []
  let cur: unknown = obj
  for (const token of pointerTokens(pointer)) {
    const step: PathStep = Array.isArray(cur) ? Number(token) : token
    steps.push(step)
    cur = cur !== null && typeof cur === 'object' ? (cur as Record<PathStep, unknown>)[step] : undefined
  }
  return steps
}

/** Our Apply entry's field set in the stored object: what the Template renders. */
function renderedFields(stored: KubeObject): FieldSet | undefined {
  const entries = storedManagedFields(stored)?.filter((e) => isOwnApplyEntry(e, FIELD_MANAGER)) ?? []
  const set = entries.length === 1 ? entries[0]?.fieldsV1 : undefined
  return typeof set === 'object' && set !== null ? (set as FieldSet) : undefined
}

/**
 * True when every change from `before` to `after` outside `ignore` lies in
 * fields the Template does not render and none is an ownership key. The
 * comparison runs to its end: one rendered field among many others decides.
 */
export function componentMayWrite(before: KubeObject, after: KubeObject, ignore: CompiledIgnore): boolean {
  const rendered = renderedFields(before)
  if (rendered === undefined) return false
  for (const change of compare(before, after, ignore)) {
    const steps = stepsOf(change.pointer, change.kind === 'added' ? after : before)
    if (isOwnershipKey(steps) || touchesSet(rendered, steps, before, after)) return false
  }
  return true
}
