// Parsing an admission request body. Plain JSON.parse, not a "secure" parser:
// a ConfigMap may legally hold a key named "__proto__", and refusing it would
// deny a real request. JSON.parse creates such keys as own properties, and
// the admission code reads objects with own-property checks only, so nothing
// reaches a prototype. Nesting is bounded before parsing, because V8 parses a
// deeply nested body far more slowly per byte than a flat one.

/**
 * Deepest nesting accepted. The API server encodes objects with Go's
 * encoding/json, which refuses nesting beyond 10000, and the review adds two
 * levels around the object; anything deeper did not come from it.
 */
export const MAX_JSON_DEPTH = 10_002

export type BodyProblem = 'EmptyBody' | 'TooDeep' | 'InvalidJSON'

export class BodyError extends Error {
  override readonly name = 'BodyError'
  readonly statusCode = 400
  readonly problem: BodyProblem

  constructor(problem: BodyProblem, message: string) {
    super(message)
    this.problem = problem
  }
}

/** Opening brackets anywhere in the text, strings included: an upper bound of the nesting depth. */
function countOpenings(text: string, stopAbove: number): number {
  let n = 0
  for (const ch of ['{', '[']) {
    for (let i = text.indexOf(ch); i >= 0; i = text.indexOf(ch, i + 1)) if (++n > stopAbove) return n
  }
  return n
}

/**
 * True when brackets outside strings nest deeper than max. Exact for valid
 * JSON; malformed text is left to JSON.parse and may be answered false.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  // Fast paths for ordinary bodies. Valid JSON nesting deeper than max has an
  // opening and a closing bracket per level, so a body shorter than that
  // (most reviews) nests less, or is malformed and refused by the parser.
  // Otherwise: too few opening brackets to nest that deep.
  if (text.length <= 2 * max + 1 || countOpenings(text, max) <= max) return false
  let depth = 0
  const n = text.length
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // Jump to the closing quote: one that is not preceded by an odd run of backslashes.
      let j = i
      for (;;) {
        j = text.indexOf('"', j + 1)
        if (j < 0) return false
        let backslashes = 0
        for (let k = j - 1; text.charCodeAt(k) === 0x5c; k--) backslashes++
        if (backslashes % 2 === 0) break
      }
      i = j
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true
    } else if (c === 0x7d || c === 0x5d) {
      depth--
    }
  }
  return false
}

/** Parses a request body; throws BodyError (HTTP 400) saying what is wrong. */
export function parseJsonBody(text: string, maxDepth: number = MAX_JSON_DEPTH): unknown {
  if (!/\S/.test(text)) throw new BodyError('EmptyBody', 'the request body is empty; expected an AdmissionReview')
  if (nestsDeeperThan(text, maxDepth)) throw new BodyError('TooDeep', `the request body nests deeper than ${maxDepth} levels`)
  try {
    return JSON.parse(text)
  } catch (err) {
    // V8's message may quote part of the body, which can be Secret data: keep only the position.
    const at = /position (\d+)/.exec((err as Error).message)?.[1]
    throw new BodyError('InvalidJSON', `the request body is not valid JSON${at === undefined ? '' : ` (error at character ${at})`}`)
  }
}
