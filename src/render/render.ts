// Template + TemplateInstance + resolved parameters -> manifests. Pure: the
// only outside knowledge, whether a kind is namespaced, is passed in.
//
// Every failure here is `Rendered=False/TemplateExecutionFailed` with a
// message that says what went wrong and where: the engine's own Go-formatted
// message for parse and execution errors, the document and line for YAML and
// manifest problems.

import type { ObjectMeta } from '../api/meta.ts'
import type { Template } from '../api/template.ts'
import { execute, ExecError, parse, ParseError } from '../gotemplate/index.ts'
import type { ParsedTemplate } from '../gotemplate/index.ts'
import { sprigFuncs } from '../gotemplate/sprig/index.ts'
import { buildRenderContext } from './context.ts'
import { ManifestError, toRenderedObjects } from './manifests.ts'
import type { RenderedObject, ScopeLookup } from './manifests.ts'
import type { ParamValue } from './types.ts'
import { parseYamlStream, YamlDocumentError } from '../encoding/yaml.ts'

export interface RenderInput {
  readonly template: Pick<Template, 'metadata' | 'spec'>
  readonly instance: { readonly metadata?: ObjectMeta }
  /** ParameterResult.values. */
  readonly values: Readonly<Record<string, ParamValue>>
  /** compileTemplate(template), when the caller caches it; parsed here otherwise. */
  readonly compiled?: ParsedTemplate
  readonly isNamespaced: ScopeLookup
}

export type RenderResult =
  | {
      readonly ok: true
      readonly objects: RenderedObject[]
      /** gvkStrings whose scope the API does not know; their objects were left as written. */
      readonly unknownKinds: string[]
    }
  | { readonly ok: false; readonly reason: 'TemplateExecutionFailed'; readonly message: string }

/**
 * Parses spec.gotemplate with the Sprig functions, under the Template's name
 * (so messages read `template: <name>:<line>: ...`). Throws ParseError, or
 * Error when the Template has no gotemplate.
 */
export function compileTemplate(template: Pick<Template, 'metadata' | 'spec'>): ParsedTemplate {
  const text = template.spec.gotemplate
  if (text === undefined) throw new Error(`Template ${templateRef(template)} has no spec.gotemplate`)
  return parse(template.metadata?.name ?? 'template', text, sprigFuncs)
}

export function renderInstance(input: RenderInput): RenderResult {
  const { template, instance } = input
  const fail = (message: string): RenderResult => ({ ok: false, reason: 'TemplateExecutionFailed', message })
  if (template.spec.gotemplate === undefined) {
    return fail(`Template ${templateRef(template)} has no spec.gotemplate; only gotemplate Templates are rendered`)
  }
  let text: string
  try {
    const compiled = input.compiled ?? compileTemplate(template)
    text = execute(compiled, buildRenderContext(instance, input.values))
  } catch (err) {
    if (err instanceof ParseError || err instanceof ExecError) return fail(err.message)
    throw err
  }
  try {
    const objects = toRenderedObjects(parseYamlStream(text), instance.metadata?.namespace ?? '', input.isNamespaced)
    const unknownKinds = [...new Set(objects.filter((o) => o.namespaced === undefined).map((o) => o.gvk))]
    return { ok: true, objects, unknownKinds }
  } catch (err) {
    if (err instanceof YamlDocumentError || err instanceof ManifestError) return fail(err.message)
    throw err
  }
}

function templateRef(template: Pick<Template, 'metadata'>): string {
  return `${template.metadata?.namespace ?? ''}/${template.metadata?.name ?? ''}`
}
