// Renders paths in the syntax users write in ignoreFields, so that a path in a
// denial message can be pasted into ignoreFields as it is. Output always
// parses back to the same steps.

import { isBareKey } from './parse.ts'
import type { PathStep, Segment } from './types.ts'

/** A concrete path, e.g. spec.template.spec.containers[0].env or metadata.annotations['example.com/owner']. */
export function formatPath(steps: readonly PathStep[]): string {
  let out = ''
  for (const step of steps) {
    if (typeof step === 'number') out += `[${step}]`
    else if (!isBareKey(step)) out += quoteKey(step)
    else out += out === '' ? step : `.${step}`
  }
  return out
}

/** The canonical spelling of a parsed entry (double quotes become single quotes, and so on). */
export function formatSegments(segments: readonly Segment[]): string {
  let out = ''
  for (const seg of segments) {
    if (seg.kind === 'wildcard') out += '[*]'
    else if (seg.kind === 'index') out += `[${seg.index}]`
    else if (!isBareKey(seg.key)) out += quoteKey(seg.key)
    else out += out === '' ? seg.key : `.${seg.key}`
  }
  return out
}

/** A key in the bracket form, single-quoted, with backslash and quote escaped. */
export function quoteKey(key: string): string {
  return `['${key.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}']`
}
