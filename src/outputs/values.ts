// Evaluating parsed templates and turning matches into status strings, by
// the rules of docs/api-outputs.md:
//
// - a path that can select one node gives that node: a string as it is,
//   numbers and booleans in JSON form, lists and maps as JSON text;
// - a path that can select several nodes always gives a JSON list, even with
//   one match, so a value's type does not depend on how many nodes matched;
// - no match (null counts as absent) is not an empty value: the caller
//   leaves the key out and reports it.
//
// Selection goes through evaluateObjectField (jsonpath-plus with eval off,
// over an expression rebuilt from our own parse).

import type { ParameterValue } from '../api/templateinstance.ts'
import { evaluateObjectField } from '../render/objectfield.ts'
import { SourceError } from '../render/sources.ts'
import type { ExprPart, TemplatePart } from './template.ts'

export type Rendered = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly unmatched: string }

/** Every node `part` selects in `data`, as JSON copies; empty when nothing matches. */
export function selectNodes(data: unknown, part: ExprPart): ParameterValue[] {
  // "{.}" on a scalar (a forEach element of a list of strings): evaluateObjectField only walks objects.
  if (
    part.steps.length === 0 &&
    (typeof data === 'string' || typeof data === 'boolean' || (typeof data === 'number' && Number.isFinite(data)))
  ) {
    return [data]
  }
  try {
    const found = evaluateObjectField(data, part.path, 'list')
    return Array.isArray(found) ? found : [found]
  } catch (err) {
    // The path parsed already, so the only SourceError left is "matched nothing".
    if (err instanceof SourceError) return []
    throw err
  }
}

/** The status string for the nodes an expression selected (at least one). */
export function formatNodes(nodes: readonly ParameterValue[], multi: boolean): string {
  if (multi) return JSON.stringify(nodes)
  const only = nodes[0]
  return typeof only === 'string' ? only : JSON.stringify(only ?? null)
}

/** Literal text plus each expression's value; the first expression without a match fails it. */
export function renderTemplate(parts: readonly TemplatePart[], data: unknown): Rendered {
  let text = ''
  for (const part of parts) {
    if (part.kind === 'text') {
      text += part.text
      continue
    }
    const nodes = selectNodes(data, part)
    if (nodes.length === 0) return { ok: false, unmatched: `{${part.source}}` }
    text += formatNodes(nodes, part.multi)
  }
  return { ok: true, text }
}

/** UTF-8 size, which is what the 4 KiB value limit counts. */
export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8')
}
