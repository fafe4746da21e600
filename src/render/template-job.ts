// One run of a user's Go template, as data in and data out, so that it can
// cross to a worker thread (src/reconciler/render-pool.ts) or run right here
// (the CLI, tests): a spec.gotemplate render to YAML documents, a
// valuesTemplate render to a values mapping, or a parse check for Valid.
// Everything a job carries survives structured cloning (plain JSON data and
// strings); the parsed templates stay with the thread that parsed them.

import type { ObjectMeta } from '../api/meta.ts'
import type { YamlDocument } from '../encoding/yaml.ts'
import { ParseError, type ParsedTemplate } from '../gotemplate/index.ts'
import { compileBody, executionFailed, type RenderFailure, renderDocuments } from './render.ts'
import type { ParamValue } from './types.ts'
import { renderValuesTemplate, VALUES_TEMPLATE_NAME } from './values-template.ts'

/** What a template sees as .instance. */
export interface JobInstance {
  readonly metadata: Pick<ObjectMeta, 'name' | 'namespace' | 'labels'>
}

export type TemplateJob =
  /** spec.gotemplate, parsed under `name` (the Template's name, as messages say). */
  | {
      readonly kind: 'manifests'
      readonly name: string
      readonly text: string
      readonly instance: JobInstance
      readonly values: Readonly<Record<string, ParamValue>>
      /** The render time limit. */
      readonly timeMs: number
    }
  /** spec.helm.valuesTemplate. */
  | {
      readonly kind: 'values'
      readonly text: string
      readonly instance: JobInstance
      readonly values: Readonly<Record<string, ParamValue>>
      readonly timeMs: number
    }
  /** Does the body parse (Valid)? `name` as for manifests, or VALUES_TEMPLATE_NAME. */
  | { readonly kind: 'parse'; readonly name: string; readonly text: string; readonly timeMs: number }

export type ManifestsOutcome = { readonly ok: true; readonly documents: YamlDocument[] } | RenderFailure
export type ValuesOutcome = { readonly ok: true; readonly values: Record<string, unknown> } | RenderFailure
/** A parse has no deadline of its own; the pool still stops one that runs past timeMs (RenderTimeout). */
export type ParseOutcome = { readonly ok: true } | RenderFailure

/** The outcome of each kind of job. */
export type OutcomeOf<J extends TemplateJob> = J extends { kind: 'manifests' }
  ? ManifestsOutcome
  : J extends { kind: 'values' }
    ? ValuesOutcome
    : ParseOutcome

export type TemplateJobOutcome = ManifestsOutcome | ValuesOutcome | ParseOutcome

/** Runs a job: in the render pool in the reconciler, on the calling thread in the CLI. */
export type TemplateRunner = <J extends TemplateJob>(job: J) => Promise<OutcomeOf<J>>

/** Parsed templates by name and text, the least recently used dropped first. */
export class ParseCache {
  private readonly parsed = new Map<string, ParsedTemplate>()
  private readonly bound: number
  constructor(bound = 256) {
    this.bound = bound
  }

  /** Throws ParseError. */
  get(name: string, text: string): ParsedTemplate {
    const key = `${name}\u0000${text}`
    let p = this.parsed.get(key)
    if (p === undefined) {
      p = compileBody(name, text)
      if (this.parsed.size >= this.bound) this.parsed.delete(this.parsed.keys().next().value as string)
    } else {
      this.parsed.delete(key)
    }
    this.parsed.set(key, p)
    return p
  }
}

/**
 * Runs a job on this thread. Execution stops at `now() + timeMs` (the
 * engine checks its deadline in loops and template calls); a parse error is
 * a TemplateExecutionFailed outcome, never an exception.
 */
export function runTemplateJob(job: TemplateJob, cache: ParseCache, now: () => number = () => performance.now()): TemplateJobOutcome {
  const name = job.kind === 'values' ? VALUES_TEMPLATE_NAME : job.name
  let compiled: ParsedTemplate
  try {
    compiled = cache.get(name, job.text)
  } catch (err) {
    if (err instanceof ParseError) return executionFailed(err.message)
    throw err
  }
  switch (job.kind) {
    case 'parse':
      return { ok: true }
    case 'manifests':
      return renderDocuments({ compiled, instance: job.instance, values: job.values, deadline: now() + job.timeMs })
    case 'values':
      return renderValuesTemplate({ text: job.text, compiled, instance: job.instance, values: job.values, deadline: now() + job.timeMs })
  }
}

/** A runner on the calling thread, with its own parse cache: for one-shot commands, where nothing else waits. */
export function inlineTemplateRunner(): TemplateRunner {
  const cache = new ParseCache()
  return async <J extends TemplateJob>(job: J) => runTemplateJob(job, cache) as OutcomeOf<J>
}

/** The instance as a template sees it, as plain data that can cross to a worker. */
export function jobInstance(instance: { readonly metadata?: ObjectMeta }): JobInstance {
  const m = instance.metadata
  return { metadata: { name: m?.name ?? '', namespace: m?.namespace ?? '', labels: { ...(m?.labels ?? {}) } } }
}
