// Compiled ignoreFields per Template, keyed by uid and generation: a Template's
// spec only changes with its generation, so each generation is compiled once,
// on its first use, and an invalid list fails once too (the error is kept and
// rethrown, not recompiled per request). The webhook, the reconciler and
// `template-sync diff` each hold one, so they cannot disagree on what a
// Template ignores, and enforcedIgnore is the one rule for an invalid list.

import type { Template } from '../api/template.ts'
import { compileIgnoreFields, type CompiledIgnore } from '../fieldpath/compile.ts'
import { FieldPathError } from '../fieldpath/errors.ts'

interface Entry {
  readonly generation: number | undefined
  readonly entries: unknown
  readonly result: { readonly ok: true; readonly ignore: CompiledIgnore } | { readonly ok: false; readonly error: unknown }
}

export interface EnforcedIgnore {
  readonly ignore: CompiledIgnore
  /** Set when the Template's list does not compile; `ignore` then leaves out nothing. */
  readonly invalid?: Error
}

const NOTHING_IGNORED = compileIgnoreFields([])

/**
 * The one rule for a Template's ignoreFields when enforcing it: a list that
 * does not compile (an invalid entry, or not a list of strings) is reported on
 * the Template (Valid=False), and meanwhile enforces everything rather than
 * guess which entries were meant; `invalid` then carries the compile error.
 * Any other failure of `compiled` is not about the list and is rethrown.
 */
export function enforcedIgnore(compiled: () => CompiledIgnore): EnforcedIgnore {
  try {
    return { ignore: compiled() }
  } catch (e) {
    if (e instanceof FieldPathError || e instanceof TypeError) return { ignore: NOTHING_IGNORED, invalid: e }
    throw e
  }
}

export interface IgnoreCacheOptions {
  /** Called once per Template generation whose ignoreFields does not compile. */
  onCompileError?: (template: Template, error: unknown) => void
}

export class IgnoreCache {
  private readonly byUid = new Map<string, Entry>()
  // Templates without a uid (never the case for objects from the API server) are cached by identity.
  private readonly byObject = new WeakMap<Template, Entry>()
  private readonly onCompileError: ((template: Template, error: unknown) => void) | undefined

  constructor(opts: IgnoreCacheOptions = {}) {
    this.onCompileError = opts.onCompileError
  }

  /** The compiled ignoreFields of the Template; throws the compile error for an invalid list. */
  get(template: Template): CompiledIgnore {
    const result = this.lookup(template)
    if (result.ok) return result.ignore
    throw result.error
  }

  /** What to leave out when enforcing the Template (enforcedIgnore over this cache). */
  enforced(template: Template): EnforcedIgnore {
    return enforcedIgnore(() => this.get(template))
  }

  private lookup(template: Template): Entry['result'] {
    const uid = template.metadata?.uid
    const generation = template.metadata?.generation
    const entries = template.spec.sync?.ignoreFields
    let entry = uid === undefined ? this.byObject.get(template) : this.byUid.get(uid)
    // The entries check covers objects whose generation is not maintained (synthetic caches).
    if (entry === undefined || entry.generation !== generation || entry.entries !== entries) {
      entry = { generation, entries, result: this.compile(template, entries) }
      if (uid === undefined) this.byObject.set(template, entry)
      else this.byUid.set(uid, entry)
    }
    return entry.result
  }

  /** Drops the entry of a deleted Template. */
  forget(uid: string | undefined): void {
    if (uid !== undefined) this.byUid.delete(uid)
  }

  get size(): number {
    return this.byUid.size
  }

  private compile(template: Template, entries: unknown): Entry['result'] {
    try {
      return { ok: true, ignore: compileIgnoreFields((entries ?? []) as readonly string[]) }
    } catch (error) {
      this.onCompileError?.(template, error)
      return { ok: false, error }
    }
  }
}
