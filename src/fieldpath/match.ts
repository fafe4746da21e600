// Asks whether one concrete path is ignored, for callers that have a path
// rather than two objects (a /scale request maps to spec.replicas, for one).

import type { CompiledIgnore } from './compile.ts'
import { ignoresPath } from './trie.ts'
import type { PathStep } from './types.ts'

/**
 * True when an entry covers the path and the path is not a protected ownership
 * key. Server-managed fields are the drift module's business and not seen here.
 */
export function isIgnoredPath(ignore: CompiledIgnore, steps: readonly PathStep[]): boolean {
  return ignoresPath(ignore.root, steps)
}
