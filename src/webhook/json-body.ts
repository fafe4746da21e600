// Parsing an admission request body. Plain JSON.parse, not a "secure" parser:
// a ConfigMap may legally hold a key named "__proto__", and refusing it would
// deny a real request. JSON.parse creates such keys as own properties, and
// the admission code reads objects with own-property checks only, so nothing
// reaches a prototype.
//
// Before anything is parsed, the cost is bounded: nesting, the number of
// values and the heap the parse would take are checked against what the API
// server can ever send and what the webhook has (the figures and their
// arithmetic are in docs/webhook-limits.md). A body within those bounds
// parses in bounded time and memory; one beyond them is refused before V8
// spends anything on it (a large one before it is even made a string).
//
// Two things are done on the way that do not change any verdict:
// - metadata.managedFields of object and oldObject is cut out of the text and
//   never parsed. It is about half of a real object and the decision never
//   reads it (server-managed). The cut is verified after parsing: a sentinel
//   that must land exactly at the two managedFields positions, otherwise the
//   whole text is parsed again as it came.
// - integers beyond 2^53 are parsed losslessly (as BigInt), so that
//   9007199254740993 and 9007199254740992 are not the same value. Only bodies
//   that contain a run of 16 digits pay for it.

import { randomInt } from 'node:crypto'
import { MANAGED_FIELDS_TEXT } from '../admission/managed-fields.ts'

/**
 * Deepest nesting accepted. The API server encodes objects with Go's
 * encoding/json, which refuses nesting beyond 10000, and the review adds two
 * levels around the object; anything deeper did not come from it.
 */
export const MAX_JSON_DEPTH = 10_002

/**
 * Most JSON values (objects, arrays and scalars, keys not counted) accepted
 * in one body: two stored objects of at most 2 MiB each at two bytes per
 * value at the densest, plus 64 Ki values for the envelope. See
 * docs/webhook-limits.md.
 */
export const MAX_JSON_VALUES = 2 * ((2 * 1024 * 1024) / 2) + 64 * 1024

export type BodyProblem = 'EmptyBody' | 'TooDeep' | 'TooManyValues' | 'TooCostly' | 'InvalidJSON'

export class BodyError extends Error {
  override readonly name = 'BodyError'
  readonly statusCode: number
  readonly problem: BodyProblem

  constructor(problem: BodyProblem, message: string, statusCode = 400) {
    super(message)
    this.problem = problem
    this.statusCode = statusCode
  }
}

export interface BodyLimits {
  readonly maxDepth: number
  readonly maxValues: number
  /**
   * Most V8 heap the parsed body may take, as estimated from its shape before
   * parsing (see PARSE_COST). The webhook sets it from its heap limit; a body
   * beyond it is answered 413 instead of exhausting the heap.
   */
  readonly maxParseBytes?: number
}

export const DEFAULT_BODY_LIMITS: BodyLimits = Object.freeze({ maxDepth: MAX_JSON_DEPTH, maxValues: MAX_JSON_VALUES })

/**
 * Heap bytes JSON.parse spends, rounded up from measurements on Node 24: an
 * empty object ~63, an empty array ~39, a member of a large object ~70 and of
 * a small one far less, an array element ~10-13 (a number or a short string),
 * and the text itself while it is parsed.
 */
export const PARSE_COST = Object.freeze({ container: 64, member: 56, element: 16, textByte: 2 })
/** The most a byte of text can cost by PARSE_COST: "{}," is a container and an element in three bytes. */
const WORST_COST_PER_BYTE = Math.ceil((PARSE_COST.container + PARSE_COST.element) / 3) + PARSE_COST.textByte

/** Index of the quote that closes the string opened at `open`, or -1. */
function closingQuote(text: string, open: number): number {
  let j = open
  for (;;) {
    j = text.indexOf('"', j + 1)
    if (j < 0) return -1
    let backslashes = 0
    for (let k = j - 1; text.charCodeAt(k) === 0x5c; k--) backslashes++
    if (backslashes % 2 === 0) return j
  }
}

/** The same on UTF-8 bytes: no byte of a multi-byte character is below 0x80, so quotes and brackets are found by byte. */
function closingQuoteByte(bytes: Buffer, open: number): number {
  let j = open
  for (;;) {
    j = bytes.indexOf(0x22, j + 1)
    if (j < 0) return -1
    let backslashes = 0
    for (let k = j - 1; bytes[k] === 0x5c; k--) backslashes++
    if (backslashes % 2 === 0) return j
  }
}

type Bound = 'TooDeep' | 'TooManyValues' | 'TooCostly' | undefined

/**
 * One pass over the bytes outside strings, stopping at the first bound
 * exceeded. For valid JSON the value count is exact: the root, one per comma,
 * and one per container that is not empty (its first element or member). The
 * parse cost adds PARSE_COST per container, member and element.
 */
function scan(bytes: Buffer, maxDepth: number, maxValues: number, maxCost: number): Bound {
  let depth = 0
  let values = 1
  const n = bytes.length
  let cost = n * PARSE_COST.textByte
  // Whether the container at each depth is an object (members) or an array (elements).
  const inObject = new Uint8Array(Math.min(maxDepth, n) + 2)
  for (let i = 0; i < n; i++) {
    const c = bytes[i]
    if (c === 0x22) {
      const j = closingQuoteByte(bytes, i)
      if (j < 0) return undefined
      i = j
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return 'TooDeep'
      const object = c === 0x7b
      inObject[depth] = object ? 1 : 0
      cost += PARSE_COST.container
      // "{" closes with "}" (0x7d), "[" with "]" (0x5d): two more than the opening byte.
      if (bytes[i + 1] !== c + 2) {
        if (++values > maxValues) return 'TooManyValues'
        cost += object ? PARSE_COST.member : PARSE_COST.element
      }
      if (cost > maxCost) return 'TooCostly'
    } else if (c === 0x7d || c === 0x5d) {
      depth--
    } else if (c === 0x2c) {
      if (++values > maxValues) return 'TooManyValues'
      cost += inObject[depth] === 1 ? PARSE_COST.member : PARSE_COST.element
      if (cost > maxCost) return 'TooCostly'
    }
  }
  return undefined
}

/** Short bodies cannot exceed a bound: a level needs two bytes, a value one and a separator, and a byte costs at most WORST_COST_PER_BYTE. */
function mayExceed(length: number, limits: BodyLimits): boolean {
  return (
    length > 2 * limits.maxDepth + 1 ||
    (length + 1) / 2 > limits.maxValues ||
    length * WORST_COST_PER_BYTE > (limits.maxParseBytes ?? Number.POSITIVE_INFINITY)
  )
}

const NO_LIMIT = Number.POSITIVE_INFINITY

/** True when brackets outside strings nest deeper than max. Exact for valid JSON; malformed text may be answered false. */
export function nestsDeeperThan(text: string, max: number): boolean {
  if (text.length <= 2 * max + 1) return false
  return scan(Buffer.from(text), max, NO_LIMIT, NO_LIMIT) === 'TooDeep'
}

/** True when valid text holds more than max JSON values (keys are not values). */
export function hasMoreValuesThan(text: string, max: number): boolean {
  if ((text.length + 1) / 2 <= max) return false
  return scan(Buffer.from(text), NO_LIMIT, max, NO_LIMIT) === 'TooManyValues'
}

/** Throws BodyError when the body nests, holds or would cost more than the limits allow; reads the bytes once. */
export function checkBodyBounds(bytes: Buffer, limits: BodyLimits = DEFAULT_BODY_LIMITS): void {
  if (!mayExceed(bytes.length, limits)) return
  const problem = scan(bytes, limits.maxDepth, limits.maxValues, limits.maxParseBytes ?? NO_LIMIT)
  if (problem === 'TooDeep') throw new BodyError('TooDeep', `the request body nests deeper than ${limits.maxDepth} levels`)
  if (problem === 'TooManyValues') {
    throw new BodyError(
      'TooManyValues',
      `the request body holds more than ${limits.maxValues} JSON values, more than two objects the API server can store`,
    )
  }
  if (problem === 'TooCostly') {
    throw new BodyError(
      'TooCostly',
      `parsing the request body would take more than the ${Math.round((limits.maxParseBytes ?? 0) / 1024 / 1024)} MiB of heap ` +
        'the webhook allows one review; raise its memory limit to judge objects this dense',
      413,
    )
  }
}

// ---- managedFields ---------------------------------------------------------

const MANAGED_FIELDS = '"managedFields":['

/** Index just after the array opened at `open`, or -1 when it does not close. Strings are skipped whole. */
function endOfArray(text: string, open: number): number {
  let depth = 0
  const n = text.length
  for (let i = open; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      const j = closingQuote(text, i)
      if (j < 0) return -1
      i = j
    } else if (c === 0x5b || c === 0x7b) {
      depth++
    } else if (c === 0x5d || c === 0x7d) {
      if (--depth === 0) return i + 1
    }
  }
  return -1
}

// Numbers no request can predict, one per cut: where each lands after parsing
// proves where that cut was made. No run of 16 digits in them, so they do not
// send the body down the lossless path.
const sentinelText = (): string => `-${randomInt(1_000_000, 10_000_000)}.${randomInt(1_000_000, 10_000_000)}e-${randomInt(100, 300)}`
const SENTINEL_TEXTS: readonly string[] = [sentinelText(), sentinelText()]
const SENTINELS: readonly number[] = SENTINEL_TEXTS.map(Number)

interface Elided {
  readonly text: string
  readonly cuts: number
  /** The arrays cut out, in order: kept as text, parsed only when a decision needs one. */
  readonly arrays: readonly string[]
}

/**
 * The text with at most `maxCuts` managedFields arrays replaced by the
 * sentinel (a review holds two objects, a watch event one: an occurrence
 * beyond that is not one of theirs), or undefined when there is none.
 */
export function elideManagedFields(text: string, maxCuts = 2): Elided | undefined {
  let at = text.indexOf(MANAGED_FIELDS)
  if (at < 0) return undefined
  const parts: string[] = []
  const arrays: string[] = []
  let from = 0
  let cuts = 0
  while (at >= 0 && cuts < Math.min(maxCuts, SENTINEL_TEXTS.length)) {
    const open = at + MANAGED_FIELDS.length - 1
    const end = endOfArray(text, open)
    if (end < 0) return undefined
    parts.push(text.slice(from, open), SENTINEL_TEXTS[cuts] as string)
    arrays.push(text.slice(open, end))
    cuts++
    from = end
    at = text.indexOf(MANAGED_FIELDS, end)
  }
  parts.push(text.slice(from))
  return { text: parts.join(''), cuts, arrays }
}

export type Rec = Record<string, unknown>

const rec = (v: unknown): Rec | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : undefined)

/** Where the managedFields of a review are: request.object.metadata and request.oldObject.metadata. */
function reviewMetadata(parsed: unknown): (Rec | undefined)[] {
  const request = rec(rec(parsed)?.request)
  return [rec(rec(request?.object)?.metadata), rec(rec(request?.oldObject)?.metadata)]
}

/**
 * True when every cut landed at the managedFields of one of `metas`; those
 * are then set to undefined (absent to every reader), keeping the objects'
 * shape, and the cut text is kept beside them, out of sight of every reader
 * but storedManagedFields (src/admission/managed-fields.ts).
 */
function restoreCuts(metas: readonly (Rec | undefined)[], elided: Elided): boolean {
  const at = (meta: Rec | undefined): number =>
    meta !== undefined && Object.hasOwn(meta, 'managedFields') ? SENTINELS.indexOf(meta.managedFields as number) : -1
  const found = new Set(metas.map(at).filter((i) => i >= 0 && i < elided.cuts))
  if (found.size !== elided.cuts) return false
  for (const meta of metas) {
    const i = at(meta)
    if (meta === undefined || i < 0) continue
    meta.managedFields = undefined
    Object.defineProperty(meta, MANAGED_FIELDS_TEXT, { value: elided.arrays[i], enumerable: false })
  }
  return true
}

// ---- integers beyond 2^53 --------------------------------------------------

/**
 * True when the text has a run of at least 16 digits, the shortest an integer
 * beyond 2^53 can be. Such a run covers a position that is a multiple of 16,
 * so only every 16th character is looked at until a digit turns up.
 */
export function hasLongDigitRun(text: string): boolean {
  const n = text.length
  for (let i = 15; i < n; i += 16) {
    const c = text.charCodeAt(i)
    if (c < 0x30 || c > 0x39) continue
    let start = i
    while (start > 0 && isDigit(text.charCodeAt(start - 1))) start--
    let end = i + 1
    while (end < n && isDigit(text.charCodeAt(end))) end++
    if (end - start >= 16) return true
  }
  return false
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39
}

const INTEGER = /^-?\d+$/

/** JSON.parse's reviver sees each number's source text; an integer it cannot hold exactly becomes a BigInt. */
function losslessInteger(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value === 'number' && !Number.isSafeInteger(value) && Number.isInteger(value)) {
    const source = context?.source
    if (source !== undefined && INTEGER.test(source)) return BigInt(source)
  }
  return value
}

function parseText(text: string): unknown {
  try {
    if (hasLongDigitRun(text)) return JSON.parse(text, losslessInteger as (key: string, value: unknown) => unknown)
    return JSON.parse(text)
  } catch (err) {
    // V8's message may quote part of the body, which can be Secret data: keep only the position.
    const at = /position (\d+)/.exec((err as Error).message)?.[1]
    throw new BodyError('InvalidJSON', `the request body is not valid JSON${at === undefined ? '' : ` (error at character ${at})`}`)
  }
}

const WHITESPACE: ReadonlySet<number> = new Set([0x20, 0x09, 0x0a, 0x0d])

function isBlank(bytes: Buffer): boolean {
  for (const b of bytes) if (!WHITESPACE.has(b)) return false
  return true
}

/**
 * Parses text with up to `maxCuts` managedFields arrays cut out, when
 * `metasOf` of the result proves every cut was one of them; otherwise the
 * text exactly as it came (the cut was elsewhere, or the text is broken).
 */
export function parseWithoutManagedFields(
  text: string,
  maxCuts: number,
  metasOf: (parsed: unknown) => readonly (Rec | undefined)[],
  parse: (text: string) => unknown,
  check?: (text: string) => void,
): unknown {
  const elided = elideManagedFields(text, maxCuts)
  if (elided !== undefined) {
    // The bounds hold for what is parsed: the cut arrays are only bracket-matched.
    check?.(elided.text)
    let parsed: unknown
    try {
      parsed = parse(elided.text)
    } catch {
      parsed = undefined
    }
    if (parsed !== undefined && restoreCuts(metasOf(parsed), elided)) return parsed
  }
  check?.(text)
  return parse(text)
}

/**
 * Bodies larger than this are scanned before they become a string, so that
 * one refused for its bounds never costs one. Smaller ones are checked on the
 * text that is parsed, managedFields cut out: a real review (~25 KB, half of
 * it managedFields) is then short enough to need no scan at all.
 */
const SCAN_BYTES_FIRST = 1024 * 1024

function parseReviewText(text: string, limits: BodyLimits, scanned: boolean): unknown {
  const check = scanned
    ? undefined
    : (t: string): void => {
        if (mayExceed(t.length, limits)) checkBodyBounds(Buffer.from(t), limits)
      }
  return parseWithoutManagedFields(text, 2, reviewMetadata, parseText, check)
}

const emptyBody = (): BodyError => new BodyError('EmptyBody', 'the request body is empty; expected an AdmissionReview')

/** Parses a request body as it was read (UTF-8 bytes, already validated); throws BodyError saying what is wrong. */
export function parseJsonBuffer(bytes: Buffer, limits: BodyLimits = DEFAULT_BODY_LIMITS): unknown {
  if (isBlank(bytes)) throw emptyBody()
  const scanned = bytes.length > SCAN_BYTES_FIRST && mayExceed(bytes.length, limits)
  if (scanned) checkBodyBounds(bytes, limits)
  return parseReviewText(bytes.toString('utf8'), limits, scanned)
}

/** Parses a request body given as text; throws BodyError (HTTP 400) saying what is wrong. */
export function parseJsonBody(
  text: string,
  maxDepth: number = MAX_JSON_DEPTH,
  maxValues: number = MAX_JSON_VALUES,
  maxParseBytes?: number,
): unknown {
  if (!/\S/.test(text)) throw emptyBody()
  const limits: BodyLimits = { maxDepth, maxValues, ...(maxParseBytes !== undefined ? { maxParseBytes } : {}) }
  return parseReviewText(text, limits, false)
}
