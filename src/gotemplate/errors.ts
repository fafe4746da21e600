// Errors of the template engine. Messages are formatted exactly like Go's
// text/template so that a Template author sees the same text whatever engine
// rendered it; the fields carry the same facts for programs (status
// conditions, the CLI) without parsing the message.

import { quote } from './strconv.ts'

export type ParseErrorCode = 'TEMPLATE_PARSE'
export type ExecErrorCode =
  | 'TEMPLATE_EXEC'
  | 'TEMPLATE_OUTPUT_LIMIT'
  | 'TEMPLATE_DEPTH_LIMIT'
  | 'TEMPLATE_RANGE_LIMIT'
  | 'TEMPLATE_CALL_LIMIT'
  | 'TEMPLATE_TIME_LIMIT'

/** Line (1-based) and column (0-based UTF-8 byte offset in the line, as Go counts) of a source offset. */
export function locate(text: string, pos: number): { line: number; column: number } {
  let line = 1
  let lineStart = 0
  for (let i = text.indexOf('\n'); i >= 0 && i < pos; i = text.indexOf('\n', i + 1)) {
    line++
    lineStart = i + 1
  }
  return { line, column: utf8Length(text.slice(lineStart, pos)) }
}

function utf8Length(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4
      i++
    } else n += 3
  }
  return n
}

/** The template could not be parsed: `template: NAME:LINE: DETAIL`. */
export class ParseError extends Error {
  readonly code: ParseErrorCode = 'TEMPLATE_PARSE'
  /** The name given to parse(). */
  readonly templateName: string
  readonly line: number
  /** 0-based byte column of the token where the problem was found. */
  readonly column: number
  /** Source text of the action being parsed, when the error is inside one. */
  readonly action: string | undefined
  /** Go's message without the location prefix. */
  readonly detail: string

  constructor(opts: { templateName: string; line: number; column: number; detail: string; action?: string | undefined }) {
    super(`template: ${opts.templateName}:${opts.line}: ${opts.detail}`)
    this.name = 'ParseError'
    this.templateName = opts.templateName
    this.line = opts.line
    this.column = opts.column
    this.detail = opts.detail
    this.action = opts.action
  }
}

/**
 * Execution failed:
 * `template: NAME:LINE:COL: executing "TEMPLATE" at <ACTION>: DETAIL`.
 */
export class ExecError extends Error {
  readonly code: ExecErrorCode
  /** The name given to parse() (Go prints it in the location). */
  readonly templateName: string
  /** The template (top-level or defined) that was executing. */
  readonly executing: string
  /** 0 when no node was being evaluated. */
  readonly line: number
  readonly column: number
  /** Go's rendering of the node being evaluated, e.g. `.spec.replicas` or `index .a 1`. */
  readonly action: string | undefined
  readonly detail: string

  constructor(opts: {
    code: ExecErrorCode
    templateName: string
    executing: string
    line: number
    column: number
    action: string | undefined
    detail: string
    cause?: unknown
    /** Errors before any template runs carry no name in the message (Go's ExecuteTemplate). */
    unnamed?: boolean
  }) {
    const where =
      opts.unnamed === true
        ? 'template: '
        : opts.action === undefined
          ? `template: ${opts.executing}: `
          : `template: ${opts.templateName}:${opts.line}:${opts.column}: executing ${quote(opts.executing)} at <${opts.action}>: `
    super(where + opts.detail, opts.cause === undefined ? undefined : { cause: opts.cause })
    this.name = 'ExecError'
    this.code = opts.code
    this.templateName = opts.templateName
    this.executing = opts.executing
    this.line = opts.line
    this.column = opts.column
    this.action = opts.action
    this.detail = opts.detail
  }
}
