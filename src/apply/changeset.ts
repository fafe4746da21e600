// What one pass did to an instance's objects, as data: the apply, diff and
// prune operations append to a change set, and the reconcile turns it into
// status conditions and Events (../report.ts) in one place.

import type { ObjectRef } from '../api/meta.ts'
import type { Adoption, Holder } from '../api/ownership.ts'
import type { Change } from '../drift/types.ts'
import { errorMessage, immutableFields } from '../kube/errors.ts'
import type { FightNotice } from './fight.ts'

export type Operation = 'dry-run' | 'apply' | 'delete' | 'release'

/** A request about one object that failed. */
export interface ObjectError {
  readonly ref: ObjectRef
  readonly operation: Operation
  /**
   * The fields the API server refused to change because they are immutable
   * (a Job's spec.template, a Service's spec.clusterIPs); empty for any other
   * failure.
   */
  readonly immutable: readonly string[]
  /**
   * The API server's message (or the error's own), without our request line.
   * For an immutable field only the fields and the server's words for why:
   * the server's message quotes the rejected value, which may hold anything.
   */
  readonly message: string
  readonly error: unknown
}

export function objectError(ref: ObjectRef, operation: Operation, error: unknown): ObjectError {
  const immutable = immutableFields(error)
  if (immutable.length > 0) {
    return {
      ref,
      operation,
      immutable: immutable.map((f) => f.field),
      message: immutable.map((f) => `${f.field}: ${f.detail}`).join('; '),
      error,
    }
  }
  const message = errorMessage(error)
  return { ref, operation, immutable: [], message, error }
}

export type ChangeSetEntry =
  | { readonly action: 'created' | 'updated' | 'pruned' | 'released'; readonly ref: ObjectRef }
  | {
      readonly action: 'corrected'
      readonly ref: ObjectRef
      readonly changes: readonly Change[]
      /** The field managers whose change was put back (the last writer other than us, for a drift). */
      readonly writers: readonly string[]
      /** The changes were fields another writer added, removed (a strip), not rendered fields put back. */
      readonly removed?: true
      /** Set when the correction came after waiting out a backoff (a fight). */
      readonly resumed?: { readonly waitedMs: number; readonly manager: string | undefined }
    }
  /** The object exists and is not ours: who holds it. */
  | { readonly action: 'conflict'; readonly ref: ObjectRef; readonly holder: Holder }
  /** The object became ours with this pass's apply. */
  | { readonly action: 'adopted'; readonly ref: ObjectRef; readonly adoption: Adoption }
  | { readonly action: 'failed'; readonly ref: ObjectRef; readonly error: ObjectError }
  /** A fight over the object started ('conflict') or ended ('ended'). */
  | { readonly action: 'fight'; readonly ref: ObjectRef; readonly notice: Extract<FightNotice, { kind: 'conflict' | 'ended' }> }

export type ChangeSet = ChangeSetEntry[]

export function failures(set: readonly ChangeSetEntry[], operation: Operation): ObjectError[] {
  const out: ObjectError[] = []
  for (const e of set) if (e.action === 'failed' && e.error.operation === operation) out.push(e.error)
  return out
}
