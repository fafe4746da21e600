// Template outputs -> TemplateInstance.status.outputs and the OutputsResolved
// condition (docs/api-outputs.md). Pure: the caller fetches the live objects
// and passes a lookup; nothing here reads the cluster or the clock.
//
// Each output resolves its source objects, turns them into keyed targets
// (one per object, or one per forEach element), then evaluates every field
// on every target. A problem leaves out only what it concerns and is
// reported; every other value is still returned.
//
// Keys are templated over the source object's own top-level fields with
// `object`, `item`, `index`, `instance` and `parameters` laid over them, so
// both "{.metadata.name}" and "{.item.name}" read as the docs show them
// (a top-level field of the object with one of those five names is hidden).

import { Reason } from '../api/conditions.ts'
import type { OutputField, TemplateOutput } from '../api/template.ts'
import type { OutputValues } from '../api/templateinstance.ts'
import { matchesLabelSelector, validateLabelSelector } from '../render/selector.ts'
import { templateScope, type TemplateScope } from './context.ts'
import { describeRef, outputLabel, resolveSource } from './sources.ts'
import { OutputTemplateError, parseSingleExpression, parseTemplate, type TemplatePart } from './template.ts'
import type { ObjectRef } from '../api/meta.ts'
import type { ExtractInput, ExtractResult, OutputFailureReason, OutputProblem } from './types.ts'
import { byteLength, renderTemplate, selectNodes } from './values.ts'

export { outputSourceRefs } from './sources.ts'

export const MAX_KEYS_PER_FIELD = 256
export const MAX_VALUE_BYTES = 4096
/** Problems spelled out in the condition message; the rest are counted. */
const MESSAGE_PROBLEMS = 5
const MESSAGE_CHARS = 4096

/** One keyed result of an output: what its fields are evaluated on. */
interface Target {
  readonly key: string
  readonly data: unknown
  /** The object (and forEach element) in words. */
  readonly where: string
}

type Report = (reason: OutputFailureReason, message: string, field?: string) => void

export function extractOutputs(input: ExtractInput): ExtractResult {
  if (input.outputs.length === 0) {
    return {
      values: {},
      problems: [],
      condition: { status: 'True', reason: Reason.NoOutputs, message: 'the Template declares no outputs' },
    }
  }
  const scope = templateScope(input)
  const problems: OutputProblem[] = []
  const values: OutputValues = {}
  const fieldOwners = new Map<string, string>()
  let written = 0
  for (const output of input.outputs) {
    const report: Report = (reason, message, field) =>
      void problems.push(field === undefined ? { reason, output: output.name, message } : { reason, output: output.name, field, message })
    const fields = claimFields(output, fieldOwners, report)
    const targets = collectTargets(output, input, scope, report)
    if (targets === undefined) continue
    for (const field of fields) written += extractField(output, field, targets, values, report)
  }
  return { values, problems, condition: conditionFor(problems, written, input.outputs.length) }
}

/** The fields whose names no earlier output took: field names are the top-level keys of status.outputs. */
function claimFields(output: TemplateOutput, owners: Map<string, string>, report: Report): OutputField[] {
  const out: OutputField[] = []
  for (const field of output.fields ?? []) {
    const owner = owners.get(field.name)
    if (owner !== undefined) {
      const by = owner === output.name ? 'this output' : `output ${JSON.stringify(owner)}`
      report(
        Reason.OutputExtractionFailed,
        `${outputLabel(output)} field ${JSON.stringify(field.name)}: the name is already used by ${by}; field names must be unique across all outputs`,
        field.name,
      )
      continue
    }
    owners.set(field.name, output.name)
    out.push(field)
  }
  return out
}

function collectTargets(output: TemplateOutput, input: ExtractInput, scope: TemplateScope, report: Report): Target[] | undefined {
  const label = outputLabel(output)
  const source = resolveSource(output, scope, input.context.instance.namespace, input.rendered)
  if (!source.ok) {
    report(source.reason, source.message)
    return undefined
  }
  const keyParts = parseKeyTemplate(output, report)
  if (keyParts === null) return undefined
  const gone = (ref: ObjectRef): void =>
    report(Reason.OutputSourceNotFound, `${label}: ${describeRef(ref)} is rendered by this instance but does not exist in the cluster`)

  if (source.mode === 'from') {
    const object = input.live(source.ref)
    if (object === undefined) {
      gone(source.ref)
      return undefined
    }
    const where = describeRef(source.ref)
    if (output.forEach !== undefined && output.forEach !== null) return forEachTargets(output, object, where, keyParts, scope, report)
    const key = keyParts === undefined ? output.name : renderKey(output, keyParts, keyData(scope, object, {}), where, scope, report)
    return key === undefined ? [] : [{ key, data: object, where }]
  }

  if (source.refs.length === 0) {
    report(Reason.OutputSourceNotFound, `${label}: ${source.describe} matches no object this instance renders`)
    return undefined
  }
  const selector = output.fromAll?.selector ?? undefined
  if (selector !== undefined) {
    const valid = validateLabelSelector(selector)
    if (!valid.ok) {
      report(Reason.OutputExtractionFailed, `${label}: fromAll.selector is invalid: ${valid.message}`)
      return undefined
    }
  }
  const matched: { ref: ObjectRef; object: object }[] = []
  let missing = 0
  for (const ref of source.refs) {
    const object = input.live(ref)
    if (object === undefined) {
      missing++
      gone(ref)
      continue
    }
    if (selector === undefined || matchesLabelSelector(selector, labelsOf(object))) matched.push({ ref, object })
  }
  if (matched.length === 0 && missing === 0) {
    report(Reason.OutputSourceNotFound, `${label}: no object of ${source.describe} matches fromAll.selector`)
    return undefined
  }
  const targets: Target[] = []
  for (const [index, { ref, object }] of matched.entries()) {
    const where = describeRef(ref)
    const key = renderKey(output, keyParts ?? DEFAULT_ALL_KEY, keyData(scope, object, { index }), where, scope, report)
    if (key !== undefined) targets.push({ key, data: object, where })
  }
  return uniqueKeys(output, targets, report)
}

const DEFAULT_ALL_KEY: readonly TemplatePart[] = parseTemplate('{.metadata.name}')

/** keyTemplate parsed; undefined when absent (use the default); null after reporting a syntax error. */
function parseKeyTemplate(output: TemplateOutput, report: Report): TemplatePart[] | undefined | null {
  if (output.keyTemplate === undefined || output.keyTemplate === null) return undefined
  try {
    return parseTemplate(output.keyTemplate)
  } catch (err) {
    if (!(err instanceof OutputTemplateError)) throw err
    report(Reason.OutputExtractionFailed, `${outputLabel(output)}: keyTemplate is invalid: ${err.message}`)
    return null
  }
}

function forEachTargets(
  output: TemplateOutput,
  object: object,
  where: string,
  keyParts: readonly TemplatePart[] | undefined,
  scope: TemplateScope,
  report: Report,
): Target[] | undefined {
  const label = outputLabel(output)
  const jsonPath = output.forEach?.jsonPath ?? ''
  let part
  try {
    part = parseSingleExpression(jsonPath)
  } catch (err) {
    if (!(err instanceof OutputTemplateError)) throw err
    report(Reason.OutputExtractionFailed, `${label}: forEach.jsonPath is invalid: ${err.message}`)
    return undefined
  }
  const nodes = selectNodes(object, part)
  if (nodes.length === 0) {
    report(Reason.OutputExtractionFailed, `${label}: forEach jsonPath ${JSON.stringify(jsonPath)} matched nothing in ${where}`)
    return undefined
  }
  const first = nodes[0]
  // A path that selects one node must select the list itself; a multi path iterates over its matches.
  const items = part.multi ? nodes : Array.isArray(first) ? first : undefined
  if (items === undefined) {
    report(
      Reason.OutputExtractionFailed,
      `${label}: forEach jsonPath ${JSON.stringify(jsonPath)} selected ${typeof first === 'object' ? 'a map' : `a ${typeof first}`}, not a list, in ${where}`,
    )
    return undefined
  }
  const targets: Target[] = []
  for (const [index, item] of items.entries()) {
    const at = `${where}, forEach element ${index}`
    const key =
      keyParts === undefined ? String(index) : renderKey(output, keyParts, keyData(scope, object, { item, index }), at, scope, report)
    if (key !== undefined) targets.push({ key, data: item, where: at })
  }
  return uniqueKeys(output, targets, report)
}

/** The object's own top-level fields with the template variables over them (see the header). */
function keyData(scope: TemplateScope, object: object, vars: { item?: unknown; index?: number }): Record<string, unknown> {
  return { ...(object as Record<string, unknown>), ...scope.keys({ object, ...vars }) }
}

function renderKey(
  output: TemplateOutput,
  parts: readonly TemplatePart[],
  data: unknown,
  where: string,
  scope: TemplateScope,
  report: Report,
): string | undefined {
  const label = `${outputLabel(output)}: keyTemplate ${JSON.stringify(output.keyTemplate ?? '{.metadata.name}')} (${where})`
  const unavailable = scope.unavailable(parts)
  if (unavailable !== undefined) {
    report(Reason.OutputParameterNotExposed, `${label} cannot be resolved: ${unavailable}`)
    return undefined
  }
  const r = renderTemplate(parts, data)
  if (!r.ok) {
    report(Reason.OutputExtractionFailed, `${label}: ${r.unmatched} matched nothing`)
    return undefined
  }
  if (r.text === '') {
    report(Reason.OutputExtractionFailed, `${label}: the key is empty`)
    return undefined
  }
  return r.text
}

/** Drops every target whose key another target of the same output also produced, and reports it. */
function uniqueKeys(output: TemplateOutput, targets: readonly Target[], report: Report): Target[] {
  const byKey = new Map<string, Target[]>()
  for (const t of targets) byKey.set(t.key, [...(byKey.get(t.key) ?? []), t])
  const out: Target[] = []
  for (const [key, group] of byKey) {
    const [first] = group
    if (group.length === 1 && first !== undefined) {
      out.push(first)
      continue
    }
    report(
      Reason.OutputExtractionFailed,
      `${outputLabel(output)}: key ${JSON.stringify(key)} is produced ${group.length} times (${group.map((t) => t.where).join('; ')}); keys must be unique, so it is left out (set keyTemplate)`,
    )
  }
  return out
}

/** Evaluates one field on every target; returns how many values it wrote. */
function extractField(
  output: TemplateOutput,
  field: OutputField,
  targets: readonly Target[],
  values: OutputValues,
  report: Report,
): number {
  const label = `${outputLabel(output)} field ${JSON.stringify(field.name)}`
  const fail = (message: string): void => report(Reason.OutputExtractionFailed, `${label}${message}`, field.name)
  let parts: TemplatePart[]
  try {
    parts = parseTemplate(field.jsonPath)
  } catch (err) {
    if (!(err instanceof OutputTemplateError)) throw err
    fail(`: jsonPath is invalid: ${err.message}`)
    return 0
  }
  if (!parts.some((p) => p.kind === 'expr')) {
    fail(`: jsonPath ${JSON.stringify(field.jsonPath)} has no {expression}`)
    return 0
  }
  let kept = targets
  if (targets.length > MAX_KEYS_PER_FIELD) {
    fail(`: ${targets.length} keys, at most ${MAX_KEYS_PER_FIELD} are allowed; the keys after the ${MAX_KEYS_PER_FIELD}th are left out`)
    kept = targets.slice(0, MAX_KEYS_PER_FIELD)
  }
  let written = 0
  for (const t of kept) {
    const r = renderTemplate(parts, t.data)
    if (!r.ok) {
      fail(` (${t.where}): jsonPath ${JSON.stringify(field.jsonPath)}: ${r.unmatched} matched nothing`)
      continue
    }
    const size = byteLength(r.text)
    if (size > MAX_VALUE_BYTES) {
      fail(` (${t.where}): the value is ${size} bytes, at most ${MAX_VALUE_BYTES} are allowed`)
      continue
    }
    let map = Object.hasOwn(values, field.name) ? values[field.name] : undefined
    if (map === undefined) {
      map = {}
      setOwn(values, field.name, map)
    }
    setOwn(map, t.key, r.text)
    written++
  }
  return written
}

function conditionFor(problems: readonly OutputProblem[], written: number, outputs: number): ExtractResult['condition'] {
  const first = problems[0]
  if (first === undefined) {
    return { status: 'True', reason: Reason.OutputsResolved, message: `${written} value(s) from ${outputs} output(s)` }
  }
  const shown = problems.slice(0, MESSAGE_PROBLEMS).map((p) => p.message)
  const more = problems.length - shown.length
  let message = `${shown.join('; ')}${more > 0 ? `; and ${more} more problem(s)` : ''}`
  if (message.length > MESSAGE_CHARS) message = `${message.slice(0, MESSAGE_CHARS - 3)}...`
  return { status: 'False', reason: first.reason, message }
}

/** Keys come from data ("__proto__" included), so they are defined, never assigned. */
function setOwn<T>(o: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true })
}

function labelsOf(object: object): Record<string, string> {
  const labels = (object as { metadata?: { labels?: unknown } }).metadata?.labels
  if (typeof labels !== 'object' || labels === null) return {}
  return Object.fromEntries(Object.entries(labels).filter((e): e is [string, string] => typeof e[1] === 'string'))
}
