// The template engine of a render (Helm's pkg/engine): every template of
// every enabled chart goes into one set (names "<chart path>/templates/x"),
// parsed in Helm's order so a shallower path's `define` wins over a
// subchart's, then every file whose name does not start with "_" runs with
// its chart's objects as dot. `<no value>` is erased from each output.
// include and tpl run nested executions in the same set (tpl in a copy
// holding its own defines); they reach the running render through
// `active`, since parsed templates are cached and shared by renders.

import { ExecError, execute, parse, ParseError } from '../../gotemplate/index.ts'
import type { FuncMap, GoMap, GoValue, ParsedTemplate } from '../../gotemplate/index.ts'
import { namedValuesMap } from '../../gotemplate/sprig/types.ts'
import type { Tree } from '../../gotemplate/ast.ts'
import { quote } from '../../gotemplate/strconv.ts'
import { HelmRenderError } from './errors.ts'
import { helmFuncs, WARN_END, WARN_START } from './funcs.ts'
import type { HelmMajor, HelmRenderLimits } from './types.ts'

export interface TemplateFile {
  /** Full name: "mychart/templates/deployment.yaml". */
  readonly name: string
  readonly text: string
  /** The chart's top-level object ({Chart, Values, Release, ...}); .Template is set in it before the file runs. */
  readonly vals: Record<string, GoValue>
  readonly basePath: string
}

interface RenderState {
  readonly helm: HelmMajor
  readonly limits: HelmRenderLimits
  readonly deadline: number
  /** The template set include looks names up in (tpl pushes its own). */
  trees: Map<string, Tree>
  readonly included: Map<string, number>
  depth: number
  calls: number
  /** The limit that stopped the render, when one did (nested errors lose their code in the message chain). */
  limitHit: string | undefined
}

let active: RenderState | undefined

const RECURSION_MAX = 1000

function current(): RenderState {
  if (active === undefined) throw new Error('include and tpl work only while a chart renders')
  return active
}

function execLimits(s: RenderState) {
  return {
    maxOutputBytes: s.limits.outputBytes,
    maxTemplateDepth: s.limits.depth,
    maxRangeIterations: s.limits.rangeIterations,
    maxTemplateCalls: s.limits.calls,
    deadline: s.deadline,
  }
}

function enter(s: RenderState, what: string): void {
  if (++s.calls > s.limits.calls) {
    s.limitHit = `include and tpl calls exceeded the limit of ${s.limits.calls}`
    throw new Error(s.limitHit)
  }
  if (s.depth >= s.limits.depth) {
    s.limitHit = `${what}: include and tpl calls nested more than ${s.limits.depth} deep (a template that includes itself?)`
    throw new Error(s.limitHit)
  }
  if (performance.now() > s.deadline) {
    s.limitHit = `rendering took longer than the limit of ${s.limits.timeMs} ms`
    throw new Error(s.limitHit)
  }
}

function noteLimit(s: RenderState, e: unknown): void {
  if (e instanceof ExecError && e.code !== 'TEMPLATE_EXEC') s.limitHit ??= e.detail
}

function includeFn(name: string, data: GoValue): string {
  const s = current()
  const n = s.included.get(name)
  if (n !== undefined && n > RECURSION_MAX) {
    throw new Error(`rendering template has a nested reference name: ${name}: unable to execute template`)
  }
  s.included.set(name, (n ?? 0) + 1)
  enter(s, `include ${quote(name)}`)
  s.depth++
  try {
    return execute({ name: 'gotpl', trees: s.trees }, data, { template: name, missingKey: 'zero', limits: execLimits(s) })
  } catch (e) {
    noteLimit(s, e)
    throw e
  } finally {
    s.depth--
    s.included.set(name, (s.included.get(name) ?? 1) - 1)
  }
}

// Cached texts are bounded in bytes too: a chart's files may be megabytes each.
const CACHE_MAX_CHARS = 64 * 1024 * 1024

/**
 * Parse results (or the ParseError) by a key that holds the parsed text,
 * bounded in entries and in key characters; when full it starts over.
 */
class ParseCache<V> {
  readonly #entries = new Map<string, V | ParseError>()
  #chars = 0
  readonly #maxEntries: number
  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries
  }

  get(key: string, parseIt: () => V): V | ParseError {
    let hit = this.#entries.get(key)
    if (hit === undefined) {
      try {
        hit = parseIt()
      } catch (e) {
        if (!(e instanceof ParseError)) throw e
        hit = e
      }
      if (this.#entries.size >= this.#maxEntries || this.#chars + key.length > CACHE_MAX_CHARS) {
        this.#entries.clear()
        this.#chars = 0
      }
      this.#entries.set(key, hit)
      this.#chars += key.length
    }
    return hit
  }
}

const tplCache = new ParseCache<Map<string, Tree>>(2000)

function parseTpl(helm: HelmMajor, text: string): Map<string, Tree> | ParseError {
  return tplCache.get(`${helm}\0${text}`, () => new Map(parse('gotpl', text, funcsFor(helm)).trees))
}

function tplFn(text: string, data: GoValue): string {
  const s = current()
  enter(s, 'tpl')
  const parsed = parseTpl(s.helm, text)
  if (parsed instanceof ParseError) throw new Error(`cannot parse template ${quote(text)}: ${parsed.message}`)
  const outer = s.trees
  const trees = new Map(outer)
  associate(trees, parsed)
  s.trees = trees
  s.depth++
  try {
    // The text's own tree runs even when the set kept the enclosing tpl's non-empty "gotpl"
    // (an empty, blank or comment-only text): Helm executes the template Parse returned.
    const root = parsed.get('gotpl')
    return execute({ name: 'gotpl', trees }, data, {
      missingKey: 'zero',
      limits: execLimits(s),
      ...(root !== undefined ? { root } : {}),
    }).replaceAll('<no value>', '')
  } catch (e) {
    noteLimit(s, e)
    if (e instanceof ExecError) throw new Error(`error during tpl function execution for ${quote(text)}: ${e.message}`, { cause: e })
    throw e
  } finally {
    s.depth--
    s.trees = outer
  }
}

const funcCache = new Map<HelmMajor, FuncMap>()

export function funcsFor(helm: HelmMajor): FuncMap {
  let f = funcCache.get(helm)
  if (f === undefined) {
    f = helmFuncs(helm, { include: includeFn, tpl: tplFn })
    funcCache.set(helm, f)
  }
  return f
}

function isEmptyTree(t: Tree): boolean {
  return t.root.nodes.every((n) => n.kind === 'text' && /^\s*$/.test(n.text))
}

/** text/template's AddParseTree: a later tree replaces an earlier one, unless it is empty and the earlier one is not. */
function associate(set: Map<string, Tree>, trees: ReadonlyMap<string, Tree>): void {
  for (const [name, tree] of trees) {
    if (set.has(name) && isEmptyTree(tree)) continue
    set.set(name, tree)
  }
}

// Parsed files by helm major, full name and text: parsing is the costly part of a render and charts repeat.
const parseCache = new ParseCache<ParsedTemplate>(5000)

function parseFile(helm: HelmMajor, name: string, text: string): ParsedTemplate {
  const hit = parseCache.get(`${helm}\0${name}\0${text}`, () => parse(name, text, funcsFor(helm)))
  if (hit instanceof ParseError) throw hit
  return hit
}

/** Helm's sortTemplates: by number of slashes, then by name, reversed (deeper paths parse first). */
function parseOrder(names: readonly string[]): string[] {
  const slashes = (s: string) => s.split('/').length
  return [...names].sort((a, b) => {
    const ca = slashes(a)
    const cb = slashes(b)
    if (ca !== cb) return cb - ca
    return a < b ? 1 : a > b ? -1 : 0
  })
}

const basename = (p: string): string => p.slice(p.lastIndexOf('/') + 1)

/** "file:line" or "file:line:col" of an error location: the file and the 1-based line. */
function splitLocation(loc: string): { template?: string; line?: number } {
  const m = /^(.*?):(\d+)(?::\d+)?$/.exec(loc)
  if (m === null) return {}
  return { template: m[1] as string, line: Number(m[2]) }
}

function parseFailure(err: ParseError): HelmRenderError {
  const tokens = err.message.split(': ')
  const location = tokens[1] ?? ''
  const msg = tokens[tokens.length - 1] ?? ''
  return new HelmRenderError('TemplateParse', `parse error at (${location}): ${msg}`, { ...splitLocation(location), cause: err })
}

interface Traceable {
  readonly location: string
  readonly message: string
  readonly executed: string
}

/** Helm 4's parseTemplateExecErrorString. */
function traceOf(s: string): Traceable | undefined {
  const prefix = 'template: '
  if (!s.startsWith(prefix)) return undefined
  const rest = s.slice(prefix.length)
  if (rest.startsWith('no template ')) return { location: '', message: s, executed: '' }
  const cut = (m: string) => {
    const i = m.indexOf(' template:')
    return i === -1 ? m : m.slice(0, i)
  }
  const ex = rest.indexOf(': executing ')
  if (ex !== -1) {
    const templateName = rest.slice(0, ex)
    const after = rest.slice(ex + ': executing '.length)
    if (after.startsWith('"')) {
      const endQuote = after.indexOf('"', 1)
      if (endQuote !== -1) {
        const fn = after.slice(1, endQuote)
        const afterFunc = after.slice(endQuote + 1)
        if (afterFunc.startsWith(' at <')) {
          const afterAt = afterFunc.slice(' at <'.length)
          const gt = afterAt.indexOf('>: ')
          if (gt !== -1) {
            return {
              location: templateName,
              message: cut(afterAt.slice(gt + 3)),
              executed: `executing "${fn}" at <${afterAt.slice(0, gt)}>:`,
            }
          }
        }
      }
    }
    return undefined
  }
  const sep = rest.lastIndexOf(': ')
  if (sep === -1) return undefined
  return { location: rest.slice(0, sep), message: cut(rest.slice(sep + 2)), executed: '' }
}

function traceString(t: Traceable): string {
  let out = ''
  if (t.location !== '') out += `${t.location}\n  `
  if (t.executed !== '') out += `${t.executed}\n    `
  if (t.message !== '') out += `${t.message}\n`
  return out
}

function v4Trace(err: ExecError): string | undefined {
  const chain: Traceable[] = []
  let cur: unknown = err
  while (cur instanceof Error) {
    const t = traceOf(cur.message)
    if (t === undefined) return undefined
    const last = chain[chain.length - 1]
    if (last === undefined || last.location !== t.location || last.message !== t.message || last.executed !== t.executed) chain.push(t)
    cur = cur instanceof ExecError || cur.cause instanceof ExecError ? cur.cause : undefined
  }
  return chain.map(traceString).join('').trim()
}

function execFailure(helm: HelmMajor, filename: string, err: ExecError, state: RenderState): HelmRenderError {
  const tokens = err.message.split(': ')
  const location = tokens.length >= 3 ? (tokens[1] ?? '') : ''
  const rest = tokens.length >= 3 ? tokens.slice(2).join(': ') : ''
  const where = splitLocation(location)
  const code = state.limitHit !== undefined || err.code !== 'TEMPLATE_EXEC' ? 'Limit' : 'TemplateExec'
  if (tokens.length < 3) {
    return new HelmRenderError(code, `execution error in (${filename}): ${err.message}`, { template: filename, cause: err })
  }
  const start = rest.indexOf(WARN_START)
  const end = rest.lastIndexOf(WARN_END)
  if (start !== -1 && end > start) {
    return new HelmRenderError(code, `execution error at (${location}): ${rest.slice(start + WARN_START.length, end)}`, {
      ...where,
      cause: err,
    })
  }
  const message = helm === 'v4' ? (v4Trace(err) ?? err.message) : err.message
  const limit = state.limitHit !== undefined ? ` (${state.limitHit})` : ''
  return new HelmRenderError(code, message + limit, { ...where, cause: err })
}

/** Renders every template; returns the output of each non-partial file (NOTES.txt included). */
export function renderTemplates(helm: HelmMajor, files: readonly TemplateFile[], limits: HelmRenderLimits): Map<string, string> {
  const byName = new Map(files.map((f) => [f.name, f]))
  const order = parseOrder([...byName.keys()])
  const trees = new Map<string, Tree>()
  for (const name of order) {
    const f = byName.get(name) as TemplateFile
    let parsed: ParsedTemplate
    try {
      parsed = parseFile(helm, name, f.text)
    } catch (e) {
      if (e instanceof ParseError) throw parseFailure(e)
      throw e
    }
    associate(trees, parsed.trees)
  }
  const state: RenderState = {
    helm,
    limits,
    deadline: performance.now() + limits.timeMs,
    trees,
    included: new Map(),
    depth: 0,
    calls: 0,
    limitHit: undefined,
  }
  const out = new Map<string, string>()
  const previous = active
  active = state
  let total = 0
  try {
    for (const name of order) {
      if (basename(name).startsWith('_')) continue
      const f = byName.get(name) as TemplateFile
      const template = Object.create(null) as GoMap
      template.Name = name
      template.BasePath = f.basePath
      f.vals.Template = namedValuesMap(template, helm === 'v3' ? 'chartutil.Values' : 'common.Values')
      let text: string
      try {
        text = execute({ name: 'gotpl', trees }, f.vals, { template: name, missingKey: 'zero', limits: execLimits(state) })
      } catch (e) {
        if (e instanceof ExecError) throw execFailure(helm, name, e, state)
        if (e instanceof RangeError) {
          throw new HelmRenderError('Limit', `${name}: templates nested too deeply`, { template: name, cause: e })
        }
        throw e
      }
      total += text.length
      if (total > limits.outputBytes && Buffer.byteLength(text) + total - text.length > limits.outputBytes) {
        throw new HelmRenderError('Limit', `rendered output exceeds the limit of ${limits.outputBytes} bytes at ${name}`, {
          template: name,
        })
      }
      if (performance.now() > state.deadline) {
        throw new HelmRenderError('Limit', `rendering took longer than the limit of ${limits.timeMs} ms (at ${name})`, { template: name })
      }
      out.set(name, text.replaceAll('<no value>', ''))
    }
  } finally {
    active = previous
  }
  return out
}
