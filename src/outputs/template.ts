// kubectl-style JSONPath templates as outputs use them: literal text with
// `{expression}` parts, e.g. "{.instance.name}-svc". Each expression is the
// objectFieldRef dialect of src/render/jsonpath.ts (a leading "$" is allowed
// and dropped), so filters and script expressions are refused while parsing
// and nothing in a template is ever run as code.
//
// kubectl's `{range}`/`{end}` loops and quoted literals are not part of the
// outputs API (forEach replaces range); they are syntax errors here.

import { JsonPathError, parseObjectFieldPath, type PathStep } from '../render/jsonpath.ts'

export type TemplatePart =
  | { readonly kind: 'text'; readonly text: string }
  | {
      readonly kind: 'expr'
      /** The expression as written between the braces. */
      readonly source: string
      /** In the objectFieldRef dialect: starts with ".". */
      readonly path: string
      readonly steps: readonly PathStep[]
      /** Can select several nodes ([*], .., slices, unions): its value is always a JSON list. */
      readonly multi: boolean
    }

export type ExprPart = Extract<TemplatePart, { kind: 'expr' }>

export class OutputTemplateError extends Error {
  override readonly name = 'OutputTemplateError'
  readonly code = 'OUTPUT_TEMPLATE_INVALID'
  readonly template: string
  constructor(template: string, detail: string, options?: ErrorOptions) {
    super(`JSONPath template ${JSON.stringify(template)}: ${detail}`, options)
    this.template = template
  }
}

const MAX_TEMPLATE = 1024

/** Splits and parses a template. Throws OutputTemplateError. */
export function parseTemplate(template: string): TemplatePart[] {
  if (typeof template !== 'string') throw new OutputTemplateError(String(template), 'must be a string')
  if (template.length > MAX_TEMPLATE) throw new OutputTemplateError(template, `is longer than ${MAX_TEMPLATE} characters`)
  const parts: TemplatePart[] = []
  let text = ''
  let i = 0
  while (i < template.length) {
    const c = template.charAt(i)
    if (c !== '{') {
      text += c
      i++
      continue
    }
    const close = closingBrace(template, i)
    if (text !== '') parts.push({ kind: 'text', text })
    text = ''
    parts.push(parseExpression(template, template.slice(i + 1, close)))
    i = close + 1
  }
  if (text !== '') parts.push({ kind: 'text', text })
  return parts
}

/** The `}` that ends the expression opened at `open`; braces inside quoted names do not count. */
function closingBrace(template: string, open: number): number {
  let quote = ''
  for (let i = open + 1; i < template.length; i++) {
    const c = template.charAt(i)
    if (quote !== '') {
      if (c === '\\') i++
      else if (c === quote) quote = ''
      continue
    }
    if (c === "'" || c === '"') quote = c
    else if (c === '{') throw new OutputTemplateError(template, `"{" inside an expression (at position ${i})`)
    else if (c === '}') return i
  }
  throw new OutputTemplateError(template, `unterminated "{" at position ${open}`)
}

function parseExpression(template: string, source: string): ExprPart {
  const trimmed = source.trim()
  if (trimmed === '') throw new OutputTemplateError(template, 'empty expression "{}"')
  if (/^(range|end)\b/.test(trimmed)) {
    throw new OutputTemplateError(template, `{${trimmed}} is not supported: outputs iterate with forEach, not range`)
  }
  // "$" is the root in kubectl's JSONPath; the objectFieldRef dialect leaves it implicit.
  const rooted = trimmed.startsWith('$') ? trimmed.slice(1) : trimmed
  const path = rooted === '' ? '.' : rooted.startsWith('[') ? `.${rooted}` : rooted
  if (!path.startsWith('.')) {
    throw new OutputTemplateError(template, `expression {${trimmed}} must start with "." (for example {.metadata.name})`)
  }
  let steps: PathStep[]
  try {
    steps = parseObjectFieldPath(path)
  } catch (err) {
    if (err instanceof JsonPathError) throw new OutputTemplateError(template, err.message, { cause: err })
    throw err
  }
  return { kind: 'expr', source: trimmed, path, steps, multi: steps.some(isMultiStep) }
}

function isMultiStep(step: PathStep): boolean {
  return step.kind === 'wildcard' || step.kind === 'descend' || step.kind === 'slice' || step.kind === 'union'
}

/** Parses a template that must be exactly one expression (forEach). */
export function parseSingleExpression(template: string): ExprPart {
  const parts = parseTemplate(template)
  const only = parts[0]
  if (parts.length !== 1 || only === undefined || only.kind !== 'expr') {
    throw new OutputTemplateError(template, 'must be a single {expression} with no text around it')
  }
  return only
}

/**
 * The parameters a template reads from a `{parameters, ...}` context:
 * `{.parameters.x...}` reads x; a step that can reach every parameter
 * (`{.parameters}`, `{.parameters.*}`, `{..x}`, `{.}`) reads all of them.
 */
export function parameterReferences(parts: readonly TemplatePart[]): { readonly all: boolean; readonly names: readonly string[] } {
  const names = new Set<string>()
  let all = false
  for (const part of parts) {
    if (part.kind !== 'expr') continue
    const [first, second] = part.steps
    if (first === undefined || first.kind === 'descend' || first.kind === 'wildcard') {
      all = true
    } else if (first.kind === 'field' && first.name === 'parameters') {
      if (second?.kind === 'field') names.add(second.name)
      else all = true
    }
  }
  return { all, names: [...names] }
}
