// The table runner of the Go template unit tests: each row is a template, its
// data, and either the output or the exact error Go gives (with its class).

import t from 'tap'
import { ExecError, execute, type MissingKey, ParseError, parse, toGoValue } from '../../../src/gotemplate/index.ts'
import type { FuncMap } from '../../../src/gotemplate/value.ts'

export interface Row {
  readonly name: string
  readonly tmpl: string
  readonly data?: unknown
  readonly missingKey?: MissingKey
  readonly want?: string
  readonly err?: string
  readonly kind?: 'parse' | 'exec'
}

export function render(row: Row, funcs?: FuncMap): { out?: string; err?: string; kind?: 'parse' | 'exec' } {
  let tpl: ReturnType<typeof parse>
  try {
    tpl = parse('t', row.tmpl, funcs)
  } catch (e) {
    if (e instanceof ParseError) return { err: e.message, kind: 'parse' }
    throw e
  }
  try {
    return { out: execute(tpl, toGoValue(row.data ?? null), row.missingKey === undefined ? {} : { missingKey: row.missingKey }) }
  } catch (e) {
    if (e instanceof ExecError) return { err: e.message, kind: 'exec' }
    throw e
  }
}

/** One tap subtest per row. */
export function runTable(rows: readonly Row[], funcs?: FuncMap): void {
  for (const row of rows) {
    t.test(row.name, async (t) => {
      const got = render(row, funcs)
      if (row.err === undefined) t.same(got, { out: row.want })
      else t.same(got, { err: row.err, kind: row.kind })
    })
  }
}
