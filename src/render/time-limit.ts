// The render time limit (docs/render-time-limit.md). Every user template the
// reconciler runs (spec.gotemplate, spec.helm.valuesTemplate, a chart's
// templates) stops at this limit and fails as RenderTimeout, a reason of its
// own so that "too slow" is not mistaken for "wrong". Pure: what the limit
// is, how a stop is recognised and how it reads in a condition.

import { ExecError } from '../gotemplate/index.ts'
import { DEFAULT_RENDER_LIMITS, HelmRenderError } from '../helm/render/index.ts'

/** The default limit of one render: the one Helm charts had before Go templates had any (10 s). */
export const DEFAULT_RENDER_TIMEOUT_MS = DEFAULT_RENDER_LIMITS.timeMs

/** The reconciler flag that sets it (chart value reconciler.renderTimeoutSeconds). */
export const RENDER_TIMEOUT_FLAG = '--render-timeout-seconds'

/** "10 s", "2.5 s", "0.25 s". */
export function formatLimit(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`
}

/** Whether the engine stopped a Go template execution at its deadline. */
export function isTimeLimit(err: unknown): err is ExecError {
  return err instanceof ExecError && err.code === 'TEMPLATE_TIME_LIMIT'
}

/**
 * Whether a chart render failed at its time limit. The engine reports every
 * limit with one code; one that failed after running at least its time limit
 * was stopped by the clock (whatever limit it reached last, it was too slow).
 */
export function chartTimedOut(err: unknown, elapsedMs: number, limitMs: number): boolean {
  return err instanceof HelmRenderError && err.code === 'Limit' && elapsedMs >= limitMs
}

/** How messages name a Template: `Template platform/web`. */
export function templateSubject(template: { readonly metadata?: { readonly namespace?: string; readonly name?: string } }): string {
  return `Template ${template.metadata?.namespace ?? ''}/${template.metadata?.name ?? ''}`
}

/**
 * The condition message of a render stopped at its limit: what did not
 * render (`Template platform/slow`, `Template platform/web: spec.helm.valuesTemplate`),
 * the limit and where to raise it, then where the render was.
 */
export function renderTimeoutMessage(subject: string, limitMs: number, detail: string): string {
  const where = detail === '' ? '' : `: ${detail}`
  return `${subject} did not render within the time limit of ${formatLimit(limitMs)} (reconciler ${RENDER_TIMEOUT_FLAG}) and was stopped${where}`
}

/**
 * A chart render stopped at its time limit: ChartRenderFn rejects with it
 * instead of a HelmRenderError, so the render pipeline can report RenderTimeout.
 */
export class ChartRenderTimeout extends Error {
  override readonly name = 'ChartRenderTimeout'
  readonly code = 'RENDER_TIMEOUT'
  readonly limitMs: number
  constructor(limitMs: number, detail: string, options?: ErrorOptions) {
    super(detail, options)
    this.limitMs = limitMs
  }
}
