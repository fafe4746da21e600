// "Would my apply change anything?", asked of the API server: a server-side
// dry-run apply of what we would send (field manager template-sync, force),
// compared with the live object outside ignoreFields and server-managed
// fields. The reconciler's dry-run gate and `template-sync diff` both ask it
// here.

import type { IdentifiedObject, ObjectRef } from '../api/meta.ts'
import { FIELD_MANAGER } from '../api/names.ts'
import { compare } from '../drift/compare.ts'
import type { CompiledIgnore } from '../fieldpath/compile.ts'
import type { ApplyOptions } from '../kube/objects.ts'
import { type ObjectError, objectError } from './changeset.ts'
import type { Check, DryRunAnswer } from './plan.ts'

/** The writes the engine makes; ObjectClient is one. */
export interface ObjectWriter {
  apply(obj: IdentifiedObject, opts: ApplyOptions): Promise<IdentifiedObject>
  removeFinalizer(obj: IdentifiedObject, finalizer: string): Promise<void>
  delete(ref: ObjectRef, opts?: { uid?: string }): Promise<boolean>
}

/** The dry-run answer for one check; throws the API error. */
export async function dryRunDiff(
  writer: Pick<ObjectWriter, 'apply'>,
  check: Pick<Check, 'intent' | 'live'>,
  ignore: CompiledIgnore,
): Promise<DryRunAnswer> {
  const wouldBe = await writer.apply(check.intent, { fieldManager: FIELD_MANAGER, force: true, dryRun: true })
  return { wouldBe, changes: check.live ? compare(check.live, wouldBe, ignore) : [] }
}

/**
 * Whether a dry-run apply met an existing object. Applied to a name that holds
 * nothing, it answers with what a create would store, which has no
 * resourceVersion yet; an existing object keeps its own.
 */
export function foundExisting(answer: DryRunAnswer): boolean {
  return (answer.wouldBe.metadata.resourceVersion ?? '') !== ''
}

export type GateResult =
  | { readonly ok: true; readonly answers: Map<string, DryRunAnswer> }
  | { readonly ok: false; readonly failed: ObjectError }

/**
 * The dry-run gate: every check that needs one is dry-run, in order, and the
 * first rejection ends the gate, so nothing is applied unless the whole render
 * passes.
 */
export async function dryRunGate(
  writer: Pick<ObjectWriter, 'apply'>,
  checks: readonly Check[],
  ignore: CompiledIgnore,
): Promise<GateResult> {
  const answers = new Map<string, DryRunAnswer>()
  for (const c of checks) {
    if (!c.dryRun) continue
    try {
      answers.set(c.desired.key, await dryRunDiff(writer, c, ignore))
    } catch (e) {
      return { ok: false, failed: objectError(c.desired.ref, 'dry-run', e) }
    }
  }
  return { ok: true, answers }
}
