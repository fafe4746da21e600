// The objectFieldRef JSONPath dialect: kubectl's JSONPath without the braces
// (`.status.loadBalancer.ingress[0].ip`), parsed here and handed to
// jsonpath-plus in a form it cannot misread. Parsing first means:
//
// - filters `[?(...)]` and script expressions `[(...)]` are refused with a
//   clear message before jsonpath-plus sees them (evaluation is also switched
//   off there, as a second wall);
// - jsonpath-plus extensions that kubectl lacks (`^` parent, `~` property
//   name, `@string()` type selectors, backtick literals) are syntax errors, so
//   a path means the same here as in the Go operator;
// - a slice step must be positive, as in kubectl (jsonpath-plus 11.3 walks a
//   negative step backwards, which kubectl refuses);
// - field names are re-emitted as quoted, backtick-literal members, so a
//   field called `*` or `..` is a field, not an operator.

export type PathStep =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'wildcard' }
  | { readonly kind: 'descend' }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'slice'; readonly start?: number; readonly end?: number; readonly step?: number }
  | { readonly kind: 'union'; readonly parts: readonly (number | SliceSpec)[] }

export interface SliceSpec {
  readonly start?: number
  readonly end?: number
  readonly step?: number
}

export class JsonPathError extends Error {
  override readonly name = 'JsonPathError'
  readonly code = 'JSONPATH_INVALID'
  readonly path: string
  readonly position: number
  constructor(path: string, position: number, detail: string) {
    super(`jsonPath ${JSON.stringify(path)}: ${detail} (at position ${position})`)
    this.path = path
    this.position = position
  }
}

// Characters that end a bare field name, as in kubectl's parser, plus the
// ones that only mean something to jsonpath-plus.
const NAME_STOP = new Set(['.', '[', ']', ',', '$', '@', '{', '}', '(', ')', '?', "'", '"', '^', '~', '`', '#', ';', '%'])
// Inside a quoted member jsonpath-plus's own path splitter still reacts to these.
const UNADDRESSABLE = /['"[\],;#@()%^`]/

/** Parses an objectFieldRef jsonPath into steps. "." alone selects the whole object. */
export function parseObjectFieldPath(path: string): PathStep[] {
  const fail = (at: number, detail: string): never => {
    throw new JsonPathError(path, at, detail)
  }
  if (path.startsWith('{')) fail(0, 'must not be wrapped in {}: write .a.b, the braces are added for you')
  if (!path.startsWith('.')) fail(0, 'must start with "."')
  if (path.length > 1024) fail(1024, 'is longer than 1024 characters')
  const steps: PathStep[] = []
  let i = 0
  if (path === '.') return steps
  while (i < path.length) {
    const c = path.charAt(i)
    if (c === '[') {
      i = parseBracket(path, i, steps, fail)
      continue
    }
    if (c !== '.') fail(i, `unexpected ${JSON.stringify(c)}`)
    if (path.charAt(i + 1) === '.') {
      steps.push({ kind: 'descend' })
      i += 2
      if (path.charAt(i) === '[') continue
    } else {
      i += 1
      // ".[0]" at the start: the dot only separates.
      if (path.charAt(i) === '[' && steps.length === 0) continue
    }
    i = parseName(path, i, steps, fail)
  }
  return steps
}

function parseName(path: string, start: number, steps: PathStep[], fail: (at: number, d: string) => never): number {
  let name = ''
  let i = start
  while (i < path.length) {
    const c = path.charAt(i)
    if (c === '\\') {
      if (i + 1 >= path.length) fail(i, 'a backslash must escape a character')
      name += path.charAt(i + 1)
      i += 2
      continue
    }
    if (NAME_STOP.has(c) || /\s/.test(c)) break
    name += c
    i++
  }
  if (i === start) {
    if (i >= path.length) fail(i, 'a field name must follow "."')
    fail(i, `unexpected ${JSON.stringify(path.charAt(i))} where a field name should be`)
  }
  if (name === '*' && path.charAt(start) !== '\\') {
    steps.push({ kind: 'wildcard' })
    return i
  }
  return pushField(start, name, steps, fail, i)
}

function pushField(at: number, name: string, steps: PathStep[], fail: (at: number, d: string) => never, next: number): number {
  if (UNADDRESSABLE.test(name)) {
    fail(at, `field name ${JSON.stringify(name)} contains a character that cannot be addressed: ' " [ ] , ; # @ ( ) % ^ \``)
  }
  steps.push({ kind: 'field', name })
  return next
}

function parseBracket(path: string, open: number, steps: PathStep[], fail: (at: number, d: string) => never): number {
  const first = path.charAt(open + 1)
  if (first === '?') fail(open, 'filter expressions [?(...)] are not supported')
  if (first === '(') fail(open, 'script expressions [(...)] are not supported')
  if (first === "'" || first === '"') {
    let name = ''
    let i = open + 2
    for (;;) {
      if (i >= path.length) fail(open, 'unterminated quoted field name')
      const c = path.charAt(i)
      if (c === '\\' && i + 1 < path.length) {
        name += path.charAt(i + 1)
        i += 2
        continue
      }
      if (c === first) break
      name += c
      i++
    }
    if (path.charAt(i + 1) !== ']') fail(i + 1, 'expected "]" after a quoted field name')
    return pushField(open + 1, name, steps, fail, i + 2)
  }
  const close = path.indexOf(']', open)
  if (close < 0) fail(open, 'unterminated "["')
  const body = path.slice(open + 1, close)
  if (body === '*') {
    steps.push({ kind: 'wildcard' })
    return close + 1
  }
  const parts = body.split(',').map((text, n) => parsePart(text, open + 1, n, fail))
  if (parts.length === 1) {
    const only = parts[0] ?? 0
    steps.push(typeof only === 'number' ? { kind: 'index', index: only } : { kind: 'slice', ...only })
  } else {
    steps.push({ kind: 'union', parts })
  }
  return close + 1
}

const INT = /^-?(0|[1-9][0-9]{0,8})$/

function parsePart(text: string, at: number, n: number, fail: (at: number, d: string) => never): number | SliceSpec {
  const bad = (): never => fail(at, `invalid array subscript ${JSON.stringify(text)}${n > 0 ? ` (union member ${n + 1})` : ''}`)
  if (!text.includes(':')) return INT.test(text) ? Number(text) : bad()
  const pieces = text.split(':')
  if (pieces.length > 3) bad()
  const [start, end, step] = pieces.map((p) => (p === '' ? undefined : INT.test(p) ? Number(p) : bad()))
  if (step !== undefined && step <= 0) fail(at, `slice step must be positive in ${JSON.stringify(text)}`)
  const spec: { start?: number; end?: number; step?: number } = {}
  if (start !== undefined) spec.start = start
  if (end !== undefined) spec.end = end
  if (step !== undefined) spec.step = step
  return spec
}

/**
 * The jsonpath-plus expression for parsed steps, or undefined when a step can
 * never match (an empty slice such as [2:0]; jsonpath-plus reads an end of 0
 * as "to the end").
 */
export function toJsonPathPlus(steps: readonly PathStep[]): string | undefined {
  let out = '$'
  for (const s of steps) {
    switch (s.kind) {
      case 'field':
        // The backtick makes jsonpath-plus take the member literally.
        out += `['\`${s.name}']`
        break
      case 'wildcard':
        // After a member step jsonpath-plus takes "*" literally when the map has a "*" key; "$" resets that.
        out += '[$][*]'
        break
      case 'descend':
        out += '..'
        break
      case 'index':
        out += `[${indexLoc(s.index)}]`
        break
      case 'slice': {
        const loc = sliceLoc(s)
        if (loc === undefined) return undefined
        out += `[${loc}]`
        break
      }
      case 'union': {
        const locs = s.parts.map((p) => (typeof p === 'number' ? indexLoc(p) : sliceLoc(p))).filter((l): l is string => l !== undefined)
        if (locs.length === 0) return undefined
        out += `[${locs.join(',')}]`
        break
      }
    }
  }
  return out
}

/** A negative index counts from the end: it becomes a one-element slice. */
function indexLoc(index: number): string {
  if (index >= 0) return String(index)
  return index === -1 ? '-1:' : `${index}:${index + 1}`
}

function sliceLoc(s: SliceSpec): string | undefined {
  if (s.end === 0) return undefined
  return `${s.start ?? ''}:${s.end ?? ''}${s.step === undefined ? '' : `:${s.step}`}`
}
