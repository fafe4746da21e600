// Template + TemplateInstance + resolved parameters -> manifests. Pure: the
// only outside knowledge, whether a kind is namespaced, is passed in.
//
// Two halves, so that the slow and untrusted one can run on another thread
// (src/reconciler/render-pool.ts): renderDocuments executes the Go template
// and decodes its YAML; manifestsOf checks the documents and defaults their
// namespaces, which needs the API's scope knowledge.
//
// Every failure is `Rendered=False/TemplateExecutionFailed` with a message
// that says what went wrong and where: the engine's own Go-formatted message
// for parse and execution errors, the document and line for YAML and
// manifest problems. An execution stopped at its deadline is RenderTimeout
// (time-limit.ts).

import type { ObjectMeta } from '../api/meta.ts'
import type { Template } from '../api/template.ts'
import { execute, ExecError, parse, ParseError } from '../gotemplate/index.ts'
import type { ParsedTemplate } from '../gotemplate/index.ts'
import { sprigFuncs } from '../gotemplate/sprig/index.ts'
import { buildRenderContext } from './context.ts'
import { ManifestError, toRenderedObjects } from './manifests.ts'
import type { RenderedObject, ScopeLookup } from './manifests.ts'
import type { ParamValue } from './types.ts'
import { parseYamlStream, type YamlDocument, YamlDocumentError } from '../encoding/yaml.ts'
import { isTimeLimit } from './time-limit.ts'

/** A render that did not produce output; RenderTimeout when its deadline stopped it. */
export type RenderFailure = {
  readonly ok: false
  readonly reason: 'TemplateExecutionFailed' | 'RenderTimeout'
  readonly message: string
}

export interface DocumentsInput {
  readonly compiled: ParsedTemplate
  readonly instance: { readonly metadata?: ObjectMeta }
  /** ParameterResult.values. */
  readonly values: Readonly<Record<string, ParamValue>>
  /** performance.now() at which execution stops (RenderTimeout); none when absent. */
  readonly deadline?: number
}

export type DocumentsResult = { readonly ok: true; readonly documents: YamlDocument[] } | RenderFailure

export interface RenderInput {
  readonly template: Pick<Template, 'metadata' | 'spec'>
  readonly instance: { readonly metadata?: ObjectMeta }
  /** ParameterResult.values. */
  readonly values: Readonly<Record<string, ParamValue>>
  /** compileTemplate(template), when the caller caches it; parsed here otherwise. */
  readonly compiled?: ParsedTemplate
  readonly isNamespaced: ScopeLookup
  readonly deadline?: number
}

export type RenderResult =
  | {
      readonly ok: true
      readonly objects: RenderedObject[]
      /** gvkStrings whose scope the API does not know; their objects were left as written. */
      readonly unknownKinds: string[]
    }
  | RenderFailure

/**
 * Parses spec.gotemplate with the Sprig functions, under the Template's name
 * (so messages read `template: <name>:<line>: ...`). Throws ParseError, or
 * Error when the Template has no gotemplate.
 */
export function compileTemplate(template: Pick<Template, 'metadata' | 'spec'>): ParsedTemplate {
  const text = template.spec.gotemplate
  if (text === undefined) throw new Error(`Template ${templateRef(template)} has no spec.gotemplate`)
  return compileBody(template.metadata?.name ?? 'template', text)
}

/** Parses a gotemplate body under `name` with the Sprig functions. Throws ParseError. */
export function compileBody(name: string, text: string): ParsedTemplate {
  return parse(name, text, sprigFuncs)
}

/**
 * Executes a parsed body over the instance context, stopped at the deadline
 * (RenderTimeout): its text, or why there is none. Both spec.gotemplate and
 * valuesTemplate run through here.
 */
export function executeBody(input: DocumentsInput): { readonly ok: true; readonly text: string } | RenderFailure {
  try {
    const limits = input.deadline === undefined ? {} : { limits: { deadline: input.deadline } }
    return { ok: true, text: execute(input.compiled, buildRenderContext(input.instance, input.values), limits) }
  } catch (err) {
    if (isTimeLimit(err)) return { ok: false, reason: 'RenderTimeout', message: err.message }
    if (err instanceof ExecError) return executionFailed(err.message)
    throw err
  }
}

/** Executes the template over the instance context and decodes the output as a YAML stream. */
export function renderDocuments(input: DocumentsInput): DocumentsResult {
  const out = executeBody(input)
  if (!out.ok) return out
  try {
    return { ok: true, documents: parseYamlStream(out.text) }
  } catch (err) {
    if (err instanceof YamlDocumentError) return executionFailed(err.message)
    throw err
  }
}

/** Checks decoded documents and defaults their namespaces (in place); lists the kinds the API does not know. */
export function manifestsOf(documents: readonly YamlDocument[], instanceNamespace: string, isNamespaced: ScopeLookup): RenderResult {
  try {
    const objects = toRenderedObjects(documents, instanceNamespace, isNamespaced)
    const unknownKinds = [...new Set(objects.filter((o) => o.namespaced === undefined).map((o) => o.gvk))]
    return { ok: true, objects, unknownKinds }
  } catch (err) {
    if (err instanceof ManifestError) return executionFailed(err.message)
    throw err
  }
}

/** Both halves on this thread: for the CLI and tests, where nothing else waits. */
export function renderInstance(input: RenderInput): RenderResult {
  const { template, instance } = input
  if (template.spec.gotemplate === undefined) {
    return executionFailed(`Template ${templateRef(template)} has no spec.gotemplate; only gotemplate Templates are rendered`)
  }
  let compiled: ParsedTemplate
  try {
    compiled = input.compiled ?? compileTemplate(template)
  } catch (err) {
    if (err instanceof ParseError) return executionFailed(err.message)
    throw err
  }
  const docs = renderDocuments({
    compiled,
    instance,
    values: input.values,
    ...(input.deadline === undefined ? {} : { deadline: input.deadline }),
  })
  if (!docs.ok) return docs
  return manifestsOf(docs.documents, instance.metadata?.namespace ?? '', input.isNamespaced)
}

/** A render that failed for what the template says (Rendered=False/TemplateExecutionFailed). */
export function executionFailed(message: string): RenderFailure {
  return { ok: false, reason: 'TemplateExecutionFailed', message }
}

function templateRef(template: Pick<Template, 'metadata'>): string {
  return `${template.metadata?.namespace ?? ''}/${template.metadata?.name ?? ''}`
}
