// spec.helm.valuesTemplate: a Go template over the same context as
// spec.gotemplate (.parameters, .instance) whose output is one YAML mapping,
// the user values of the chart render (what `helm template -f values.yaml`
// reads). Pure.
//
// Every failure is Rendered=False/TemplateExecutionFailed on the instance
// with the line: the engine's `template: spec.helm.valuesTemplate:3: ...` for
// parse and execution errors, the line of the rendered output for YAML that
// does not decode or is not a mapping. An execution stopped at its deadline
// is RenderTimeout (time-limit.ts).

import type { ObjectMeta } from '../api/meta.ts'
import { parse, ParseError, type ParsedTemplate } from '../gotemplate/index.ts'
import { sprigFuncs } from '../gotemplate/sprig/index.ts'
import type { ParamValue } from './types.ts'
import { parseYamlStream, YamlDocumentError } from '../encoding/yaml.ts'
import { executeBody, executionFailed as fail, type RenderFailure } from './render.ts'

/** The template name messages carry, so they say which field and line failed. */
export const VALUES_TEMPLATE_NAME = 'spec.helm.valuesTemplate'

/** Parses a valuesTemplate with the Sprig functions. Throws ParseError. */
export function compileValuesTemplate(text: string): ParsedTemplate {
  return parse(VALUES_TEMPLATE_NAME, text, sprigFuncs)
}

export interface ValuesTemplateInput {
  /** spec.helm.valuesTemplate; absent means no user values. */
  readonly text: string | undefined
  /** compileValuesTemplate(text), when the caller caches it. */
  readonly compiled?: ParsedTemplate
  readonly instance: { readonly metadata?: ObjectMeta }
  readonly values: Readonly<Record<string, ParamValue>>
  /** performance.now() at which execution stops (RenderTimeout); none when absent. */
  readonly deadline?: number
}

export type ValuesTemplateResult = { readonly ok: true; readonly values: Record<string, unknown> } | RenderFailure

/** The first line at or after `from` (1-based) holding YAML content rather than a blank, a comment or "---". */
function contentLine(text: string, from: number): number {
  const lines = text.split('\n')
  for (let i = from - 1; i < lines.length; i++) {
    const l = (lines[i] ?? '').trim()
    if (l !== '' && !l.startsWith('#') && !l.startsWith('---')) return i + 1
  }
  return from
}

function describeShape(v: unknown): string {
  if (Array.isArray(v)) return 'a list'
  return typeof v === 'string' ? 'a string' : `a ${typeof v}`
}

export function renderValuesTemplate(input: ValuesTemplateInput): ValuesTemplateResult {
  if (input.text === undefined) return { ok: true, values: {} }
  let compiled: ParsedTemplate
  try {
    compiled = input.compiled ?? compileValuesTemplate(input.text)
  } catch (err) {
    if (err instanceof ParseError) return fail(err.message)
    throw err
  }
  const out = executeBody({
    compiled,
    instance: input.instance,
    values: input.values,
    ...(input.deadline === undefined ? {} : { deadline: input.deadline }),
  })
  if (!out.ok) return out
  const text = out.text
  let docs: ReturnType<typeof parseYamlStream>
  try {
    docs = parseYamlStream(text)
  } catch (err) {
    if (err instanceof YamlDocumentError) {
      return fail(`${VALUES_TEMPLATE_NAME} rendered invalid YAML: ${err.message.replace(/^rendered document \d+: /, '')}`)
    }
    throw err
  }
  // Helm 3 and 4 read a multi-document values file differently (first document / all merged): one document avoids the question.
  if (docs.length > 1) {
    return fail(
      `${VALUES_TEMPLATE_NAME} must render one YAML mapping; it rendered ${docs.length} documents (the second starts at line ${contentLine(text, docs[1]?.line ?? 1)})`,
    )
  }
  const doc = docs[0]
  if (doc === undefined) return { ok: true, values: {} }
  const v = doc.value
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    return fail(
      `${VALUES_TEMPLATE_NAME} must render a YAML mapping; it rendered ${describeShape(v)} at line ${contentLine(text, doc.line)}`,
    )
  }
  return { ok: true, values: v as Record<string, unknown> }
}
