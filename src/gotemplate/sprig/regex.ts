// Sprig's regex functions over Go's regexp semantics (see goregexp.ts).
// The plain variants panic on a bad pattern (MustCompile), which ends the
// execution, except regexMatch, which answers false.

import type { FuncMap, GoValue } from '../value.ts'
import { allMatches, compileCached, findString, matchString, quoteMeta, RegexpSyntaxError, replaceAll, split } from './goregexp.ts'
import type { GoRegexp } from './goregexp.ts'
import { quoteGo } from './gofmt.ts'
import { fail, fn, int, str } from './spec.ts'
import { nilSlice, tagType } from './types.ts'

// The must* variants return Compile's error; the others panic in
// MustCompile, whose message names the pattern.
function compileWith(panics: boolean) {
  return (expr: GoValue): GoRegexp => {
    const pattern = str(expr)
    try {
      return compileCached(pattern)
    } catch (e) {
      if (e instanceof RegexpSyntaxError) fail(panics ? `regexp: Compile(${quotePattern(pattern)}): ${e.message}` : e.message)
      throw e
    }
  }
}

// regexp's quote: backquoted when strconv.CanBackquote allows it.
function quotePattern(s: string): string {
  return /^[^`\x00-\x08\x0a-\x1f\x7f\ufeff]*$/.test(s) && s.isWellFormed() ? '`' + s + '`' : quoteGo(s)
}

const compile = compileWith(false)
const mustCompile = compileWith(true)

const strings = (v: string[] | undefined): GoValue => (v === undefined ? nilSlice('[]string') : tagType(v, '[]string'))

type Compiler = (expr: GoValue) => GoRegexp

const findAll =
  (c: Compiler) =>
  (re: GoValue, s: GoValue, n: GoValue): GoValue => {
    const g = c(re)
    const count = int(n)
    if (count === 0) return nilSlice('[]string')
    const text = str(s)
    const ms = allMatches(g, text, count)
    return strings(ms.length === 0 ? undefined : ms.map((m) => text.slice(m.start, m.end)))
  }

const find =
  (c: Compiler) =>
  (re: GoValue, s: GoValue): GoValue =>
    findString(c(re), str(s))
const replace =
  (c: Compiler) =>
  (re: GoValue, s: GoValue, repl: GoValue): GoValue =>
    replaceAll(c(re), str(s), str(repl), true)
const replaceLiteral =
  (c: Compiler) =>
  (re: GoValue, s: GoValue, repl: GoValue): GoValue =>
    replaceAll(c(re), str(s), str(repl), false)
const splitRe =
  (c: Compiler) =>
  (re: GoValue, s: GoValue, n: GoValue): GoValue =>
    strings(split(c(re), str(s), int(n)))

export const regexFuncs: FuncMap = {
  regexMatch: fn(['string', 'string'], (re, s) => {
    try {
      return matchString(compileCached(str(re)), str(s))
    } catch (e) {
      if (e instanceof RegexpSyntaxError) return false
      throw e
    }
  }),
  mustRegexMatch: fn(['string', 'string'], (re, s) => matchString(compile(re), str(s))),
  regexFindAll: fn(['string', 'string', 'int'], findAll(mustCompile)),
  mustRegexFindAll: fn(['string', 'string', 'int'], findAll(compile)),
  regexFind: fn(['string', 'string'], find(mustCompile)),
  mustRegexFind: fn(['string', 'string'], find(compile)),
  regexReplaceAll: fn(['string', 'string', 'string'], replace(mustCompile)),
  mustRegexReplaceAll: fn(['string', 'string', 'string'], replace(compile)),
  regexReplaceAllLiteral: fn(['string', 'string', 'string'], replaceLiteral(mustCompile)),
  mustRegexReplaceAllLiteral: fn(['string', 'string', 'string'], replaceLiteral(compile)),
  regexSplit: fn(['string', 'string', 'int'], splitRe(mustCompile)),
  mustRegexSplit: fn(['string', 'string', 'int'], splitRe(compile)),
  regexQuoteMeta: fn(['string'], (s) => quoteMeta(str(s))),
}
