// Carries out the writes a plan decided: server-side apply (field manager
// template-sync, force) of each create, update and correction, in order. Every
// object gets its own outcome; one failure does not stop the others.

import type { IdentifiedObject } from '../api/meta.ts'
import { FIELD_MANAGER } from '../api/names.ts'
import { type ObjectError, objectError } from './changeset.ts'
import type { ObjectWriter } from './diff.ts'
import type { ObjectAction } from './plan.ts'

export interface ApplyOutcome {
  readonly action: ObjectAction
  /** What the API server made of the apply; absent when none was made or it failed. */
  readonly result?: IdentifiedObject
  readonly error?: ObjectError
  /** When the write returned (milliseconds since the epoch); the fight state counts a correction from then. */
  readonly at: number
}

export async function applyActions(
  writer: Pick<ObjectWriter, 'apply'>,
  actions: readonly ObjectAction[],
  now: () => number,
): Promise<ApplyOutcome[]> {
  const out: ApplyOutcome[] = []
  for (const action of actions) {
    if (action.type !== 'create' && action.type !== 'update' && action.type !== 'correct') {
      out.push({ action, at: now() })
      continue
    }
    try {
      const result = await writer.apply(action.intent, { fieldManager: FIELD_MANAGER, force: true })
      out.push({ action, result, at: now() })
    } catch (e) {
      out.push({ action, error: objectError(action.desired.ref, 'apply', e), at: now() })
    }
  }
  return out
}
