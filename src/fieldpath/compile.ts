// Turns a Template's sync.ignoreFields into a reusable matcher. Compile once
// per Template generation; matching and comparing never parse again.

import { FieldPathError } from './errors.ts'
import { parseEntry } from './parse.ts'
import { PROTECTED_PATHS, PROTECTED_PATHS_TERMINATING } from './protected.ts'
import { buildTrie, type TrieNode, type TrieRule } from './trie.ts'
import { keySegment } from './types.ts'

declare const compiledBrand: unique symbol

/**
 * Compiled ignoreFields. Only compileIgnoreFields makes one; treat the fields
 * other than `entries` as internal to src/fieldpath and src/drift.
 */
export interface CompiledIgnore {
  /** The entries as given, for messages. */
  readonly entries: readonly string[]
  /** The parsed entries plus the protected ownership keys. */
  readonly rules: readonly TrieRule[]
  /** The matcher for `rules`. */
  readonly root: TrieNode
  readonly [compiledBrand]: true
}

const protectRules = (paths: readonly (readonly string[])[]): readonly TrieRule[] =>
  Object.freeze(paths.map((p) => Object.freeze({ segments: Object.freeze(p.map(keySegment)), effect: 'protect' as const })))
const PROTECT_RULES = protectRules(PROTECTED_PATHS)
const PROTECT_RULES_TERMINATING = protectRules(PROTECTED_PATHS_TERMINATING)

export interface CompileOptions {
  /** For an object being deleted: finalizers are not protected (PROTECTED_PATHS_TERMINATING). */
  readonly terminating?: boolean
}

/** Throws the FieldPathError of the first invalid entry. */
export function compileIgnoreFields(entries: readonly string[], options: CompileOptions = {}): CompiledIgnore {
  assertList(entries)
  const rules: TrieRule[] = entries.map((entry, i) =>
    Object.freeze({ segments: Object.freeze(parseEntry(entry, i)), effect: 'ignore' as const }),
  )
  rules.push(...(options.terminating === true ? PROTECT_RULES_TERMINATING : PROTECT_RULES))
  return Object.freeze({
    entries: Object.freeze([...entries]),
    rules: Object.freeze(rules),
    root: buildTrie(rules),
  }) as CompiledIgnore
}

/** Every invalid entry, in list order; empty when all are valid. */
export function validateIgnoreFields(entries: readonly string[]): FieldPathError[] {
  assertList(entries)
  const errors: FieldPathError[] = []
  entries.forEach((entry, i) => {
    try {
      parseEntry(entry, i)
    } catch (err) {
      if (!(err instanceof FieldPathError)) throw err
      errors.push(err)
    }
  })
  return errors
}

function assertList(entries: readonly string[]): void {
  if (!Array.isArray(entries)) throw new TypeError(`ignoreFields must be a list of strings, got ${typeof entries}`)
}
