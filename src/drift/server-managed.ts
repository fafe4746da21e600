// Fields the API server writes on its own. They change on every write or
// describe the object's life rather than its desired state, so they are never
// drift. normalize and compare both read this one list.

import { keySegment, type Segment } from '../fieldpath/types.ts'
import type { TrieRule } from '../fieldpath/trie.ts'

export const SERVER_MANAGED_METADATA: readonly string[] = Object.freeze([
  'resourceVersion',
  'managedFields',
  'generation',
  'uid',
  'creationTimestamp',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
])

/** Top-level fields dropped as a whole. */
export const SERVER_MANAGED_TOP_LEVEL: readonly string[] = Object.freeze(['status'])

const ignoreRule = (segments: readonly Segment[]): TrieRule => Object.freeze({ segments: Object.freeze(segments), effect: 'ignore' })

export const SERVER_MANAGED_RULES: readonly TrieRule[] = Object.freeze([
  ...SERVER_MANAGED_TOP_LEVEL.map((k) => ignoreRule([keySegment(k)])),
  ...SERVER_MANAGED_METADATA.map((k) => ignoreRule([keySegment('metadata'), keySegment(k)])),
])
