// Turns a Template's sync.ignoreFields into a reusable matcher. Compile once
// per Template generation; matching and comparing never parse again.

import { FieldPathError } from './errors.ts'
import { parseEntry } from './parse.ts'
import { PROTECTED_PATHS } from './protected.ts'
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

const PROTECT_RULES: readonly TrieRule[] = Object.freeze(
  PROTECTED_PATHS.map((p) => Object.freeze({ segments: Object.freeze(p.map(keySegment)), effect: 'protect' as const })),
)

/** Throws the FieldPathError of the first invalid entry. */
export function compileIgnoreFields(entries: readonly string[]): CompiledIgnore {
  assertList(entries)
  const rules: TrieRule[] = entries.map((entry, i) =>
    Object.freeze({ segments: Object.freeze(parseEntry(entry, i)), effect: 'ignore' as const }),
  )
  rules.push(...PROTECT_RULES)
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
