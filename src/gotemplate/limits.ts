// Resource limits for template execution. Templates are written by platform
// teams but run inside the operator, so one template must not be able to
// exhaust its memory or CPU. Go's own limits are far higher (a template
// call depth of 100000, no output or iteration limits); these are sized for
// Kubernetes manifests, which are a few hundred kilobytes at most.
//
// The template depth is 100 because the executor recurses on the JS stack:
// 100 levels leave room for deeply nested control structures in each level.
// Should the stack still run out (absurd nesting of data or structures), the
// execution fails with the same TEMPLATE_DEPTH_LIMIT code.

export interface ExecLimits {
  /** Bytes of UTF-8 output, and of any single string a function returns. */
  readonly maxOutputBytes: number
  /** Nesting of {{template}} / {{block}} calls (Go: 100000; see above). */
  readonly maxTemplateDepth: number
  /** Iterations of all {{range}} loops of one execution together. */
  readonly maxRangeIterations: number
  /** {{template}} calls of one execution together (bounds recursion that fans out). */
  readonly maxTemplateCalls: number
  /**
   * performance.now() after which execution stops (checked every few loop
   * iterations and at each {{template}} call); undefined for no deadline.
   */
  readonly deadline?: number
}

export const defaultLimits: ExecLimits = Object.freeze({
  maxOutputBytes: 16 * 1024 * 1024,
  maxTemplateDepth: 100,
  maxRangeIterations: 1_000_000,
  maxTemplateCalls: 100_000,
})

/**
 * Nesting of parentheses and control structures accepted by the parser.
 * Go stops parenthesized pipelines at 10000; the parser here is recursive, so
 * it stops both kinds of nesting earlier, with Go's message.
 */
export const maxParseDepth = 1000
