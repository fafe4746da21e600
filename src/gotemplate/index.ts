// Go text/template for TypeScript: parse once, execute many times, with
// output byte for byte identical to Go's (see docs/gotemplate-engine.md).

import type { Tree } from './ast.ts'
import { builtinFuncs } from './builtins.ts'
import { ExecError } from './errors.ts'
import { executeSet } from './exec.ts'
import type { MissingKey } from './exec.ts'
import { defaultLimits } from './limits.ts'
import type { ExecLimits } from './limits.ts'
import { parseTrees } from './parse.ts'
import { sprigFuncs } from './sprig/index.ts'
import { quote } from './strconv.ts'
import { GoInt, GoObject, GoTime, newMap, setKey } from './value.ts'
import type { FuncMap, GoFuncSpec, GoValue } from './value.ts'

export { builtinFuncs } from './builtins.ts'
export { ExecError, ParseError } from './errors.ts'
export type { ExecErrorCode, ParseErrorCode } from './errors.ts'
export { defaultLimits } from './limits.ts'
export type { ExecLimits } from './limits.ts'
export type { MissingKey } from './exec.ts'
export { GoFuncError, GoInt, GoObject, GoTime, goInt, int64, isGoInteger, integerValue, newMap, setKey, uint8 } from './value.ts'
export type { ArgKind, FuncMap, GoFunc, GoFuncSpec, GoMap, GoValue, IntKind } from './value.ts'

/** A parsed template set: the named template plus everything it defines. */
export interface ParsedTemplate {
  readonly name: string
  /** Every template of the set by name, the top-level one included. */
  readonly trees: ReadonlyMap<string, Tree>
}

export interface ExecuteOptions {
  /** Overrides of defaultLimits. */
  readonly limits?: Partial<ExecLimits>
  /** Go's missingkey option; the operator runs with 'error' (the default here). */
  readonly missingKey?: MissingKey
  /** Execute this template of the set instead of the top-level one (Go's ExecuteTemplate). */
  readonly template?: string
  /**
   * Run this tree as the top-level template although the set holds another by
   * its name. Go's Template.Execute runs the template's own tree, and Parse
   * gives a new template its tree even when the set keeps an earlier,
   * non-empty one under that name (an empty tree never replaces it).
   */
  readonly root?: Tree
}

/**
 * Parses a template. Functions of `funcs` are available besides the
 * text/template built-ins and replace a built-in of the same name, as in Go;
 * calling an unknown function is a parse error. Throws ParseError.
 */
export function parse(name: string, text: string, funcs: FuncMap = {}): ParsedTemplate {
  const lookup = (fn: string): GoFuncSpec | undefined =>
    Object.hasOwn(funcs, fn) ? funcs[fn] : Object.hasOwn(builtinFuncs, fn) ? builtinFuncs[fn] : undefined
  return { name, trees: parseTrees(name, text, lookup) }
}

/** Executes a parsed template with data as dot. Throws ExecError. */
export function execute(t: ParsedTemplate, data: GoValue, opts: ExecuteOptions = {}): string {
  const limits: ExecLimits = opts.limits === undefined ? defaultLimits : { ...defaultLimits, ...opts.limits }
  const entry = opts.template ?? t.name
  if (opts.root !== undefined) return executeSet({ name: entry, trees: t.trees, root: opts.root }, data, limits, opts.missingKey ?? 'error')
  if (!t.trees.has(entry)) {
    throw new ExecError({
      code: 'TEMPLATE_EXEC',
      templateName: t.name,
      executing: entry,
      line: 0,
      column: 0,
      action: undefined,
      detail: `no template ${quote(entry)} associated with template ${quote(t.name)}`,
      unnamed: true,
    })
  }
  return executeSet({ name: entry, trees: t.trees }, data, limits, opts.missingKey ?? 'error')
}

/** Parses and executes with the built-ins, Sprig (minus env, expandenv, getHostByName) and extraFuncs. */
export function renderTemplate(name: string, text: string, data: GoValue, extraFuncs: FuncMap = {}): string {
  return execute(parse(name, text, { ...sprigFuncs, ...extraFuncs }), data)
}

/**
 * Converts JSON-decoded data to the value model the way Go's encoding/json
 * decodes into interface{}: every number is a float64, objects become maps
 * (whose keys, "__proto__" included, are plain data). Strings with unpaired
 * surrogates get U+FFFD, as Go's decoder substitutes.
 *
 * Values already in the model pass through, so data can mix JSON with Go
 * types: a bigint is a Go int, a GoInt another integer type (int64(5n) for
 * an int64), a GoTime a time.Time, a GoObject a struct or pointer.
 */
export function toGoValue(json: unknown): GoValue {
  switch (typeof json) {
    case 'string':
      return json.isWellFormed() ? json : json.toWellFormed()
    case 'number':
    case 'boolean':
    case 'bigint':
      return json
    case 'undefined':
      return null
  }
  if (json === null) return null
  if (Array.isArray(json)) return json.map((e: unknown) => toGoValue(e))
  if (json instanceof GoTime || json instanceof GoInt || json instanceof GoObject) return json
  if (typeof json === 'object') {
    if (json instanceof Date) return json.toJSON()
    const m = newMap()
    for (const [k, v] of Object.entries(json)) {
      // JSON.stringify drops undefined members; so does this.
      if (v !== undefined) setKey(m, k, toGoValue(v))
    }
    return m
  }
  throw new TypeError(`toGoValue: ${typeof json} is not JSON data`)
}
