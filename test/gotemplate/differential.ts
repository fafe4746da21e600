// Renders corpus cases with the TypeScript engine and compares them with Go's
// results: identical output, or the same error class with the same message.

import { execute, ExecError, parse, ParseError, toGoValue } from '../../src/gotemplate/index.ts'
import { sprigFuncs } from '../../src/gotemplate/sprig/index.ts'
import type { Case } from './corpus/case.ts'
import type { OracleResult } from './oracle.ts'

export type Outcome =
  | { readonly output: string }
  | { readonly errorClass: 'parse' | 'exec'; readonly error: string }
  | { readonly crash: string }

export function renderCase(c: Case): Outcome {
  // The data takes the same JSON path as in the oracle (no -0, no undefined).
  const data = toGoValue(JSON.parse(JSON.stringify(c.data ?? null)) as unknown)
  let tmpl
  try {
    tmpl = parse(c.name, c.template, sprigFuncs)
  } catch (e) {
    if (e instanceof ParseError) return { errorClass: 'parse', error: e.message }
    return { crash: e instanceof Error ? `${e.name}: ${e.message}` : String(e) }
  }
  try {
    return { output: execute(tmpl, data) }
  } catch (e) {
    if (e instanceof ExecError) return { errorClass: 'exec', error: e.message }
    return { crash: e instanceof Error ? `${e.name}: ${e.message}` : String(e) }
  }
}

export interface Comparison {
  readonly equal: boolean
  /** Same class and also the same error text. */
  readonly sameMessage?: boolean
  readonly want: Omit<OracleResult, 'name'>
  readonly got: Outcome
}

/** Equal means the same bytes, or an error of the same class with Go's exact message. */
export function compare(want: Omit<OracleResult, 'name'>, got: Outcome): Comparison {
  if (want.errorClass !== undefined) {
    const sameClass = 'errorClass' in got && got.errorClass === want.errorClass
    const sameMessage = sameClass && 'error' in got && got.error === want.error
    return { equal: sameMessage, sameMessage, want, got }
  }
  return { equal: 'output' in got && got.output === want.output, want, got }
}

export function describe(c: Comparison): string {
  const w =
    c.want.errorClass !== undefined ? `${c.want.errorClass} error: ${c.want.error ?? ''}` : `output ${JSON.stringify(c.want.output)}`
  const g =
    'output' in c.got
      ? `output ${JSON.stringify(c.got.output)}`
      : 'crash' in c.got
        ? `crash: ${c.got.crash}`
        : `${c.got.errorClass} error: ${c.got.error}`
  return `want ${w}\n got ${g}`
}
