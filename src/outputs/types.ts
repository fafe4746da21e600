// Inputs and results of output extraction (docs/api-outputs.md).

import type { Reason } from '../api/conditions.ts'
import type { ObjectRef } from '../api/meta.ts'
import type { TemplateOutput } from '../api/template.ts'
import type { OutputValues, ResolvedParameter } from '../api/templateinstance.ts'

/** The render context that source names and keys are templated over. */
export interface OutputContext {
  /** The resolved parameter values of this reconcile (ParameterResult.values); ignored when frozen. */
  readonly parameters: Readonly<Record<string, unknown>>
  readonly instance: {
    readonly name: string
    readonly namespace: string
    readonly labels: Readonly<Record<string, string>>
  }
}

export interface ExtractInput {
  /** Template.spec.outputs (absent: pass []). */
  readonly outputs: readonly TemplateOutput[]
  readonly context: OutputContext
  /**
   * Sync mode off after the first clean pass. Templates then read parameters
   * only from `resolvedParameters` values, never from `context.parameters`.
   */
  readonly frozen: boolean
  /** status.resolvedParameters; only read when frozen. */
  readonly resolvedParameters?: readonly ResolvedParameter[]
  /** Names of the Template's parameters with exposeInStatus: true; sharpens the frozen-instance message. */
  readonly exposedParameters: ReadonlySet<string>
  /** The objects of the current render (frozen: status.renderedResources). Only these can be sources. */
  readonly rendered: readonly ObjectRef[]
  /** The live object for a rendered ref, or undefined when it does not exist. Never called for a Secret. */
  readonly live: (ref: ObjectRef) => object | undefined
}

export type OutputFailureReason =
  | typeof Reason.OutputSourceNotFound
  | typeof Reason.OutputExtractionFailed
  | typeof Reason.OutputParameterNotExposed

export type OutputsReason = typeof Reason.OutputsResolved | typeof Reason.NoOutputs | OutputFailureReason

/** One thing that kept a value out of status.outputs. */
export interface OutputProblem {
  readonly reason: OutputFailureReason
  readonly output: string
  readonly field?: string
  readonly message: string
}

/** The OutputsResolved condition, without its type. */
export interface OutputsCondition {
  readonly status: 'True' | 'False'
  readonly reason: OutputsReason
  readonly message: string
}

export interface ExtractResult {
  /** status.outputs: every value that could be extracted, also when the condition is False. */
  readonly values: OutputValues
  readonly condition: OutputsCondition
  /** Every problem, in declaration order; the condition's reason is the first one's. */
  readonly problems: readonly OutputProblem[]
}
