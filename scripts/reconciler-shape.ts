// Two checks of the reconciler's shape (docs/reconcile.md), run by `npm run
// lint`. Functions longer than a screen hide their steps: in the folders
// below, no function, method or constructor may span more than MAX_LINES
// lines, except the ports of Go code named in PORTS, which follow their
// original's shape so that they can be compared with it line by line. And the
// reconciler writes a TemplateInstance only through its InstanceRecord.

import { readFileSync } from 'node:fs'
import ts from 'typescript'

export const MAX_LINES = 80
export const CHECKED_DIRS: readonly string[] = ['src/controller', 'src/apply']
/** Files ported from Go, exempt as docs/reconcile.md says (none is longer today). */
export const PORTS: readonly string[] = []

export interface LongFunction {
  readonly file: string
  readonly line: number
  readonly name: string
  readonly lines: number
}

function nameOf(node: ts.Node): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name !== undefined) return node.name.getText()
  const parent = node.parent
  if (parent !== undefined && ts.isVariableDeclaration(parent)) return parent.name.getText()
  if (parent !== undefined && ts.isPropertyAssignment(parent)) return parent.name.getText()
  return '(anonymous)'
}

/** The functions of one source text that are longer than `max` lines. */
export function longFunctions(file: string, text: string, max = MAX_LINES): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const out: LongFunction[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line
      const lines = end - start + 1
      if (lines > max) out.push({ file, line: start + 1, name: nameOf(node), lines })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return out
}

/** Every too-long function of the checked folders, as lint messages. */
export function checkFunctionLengths(files: readonly { rel: string; abs: string }[]): string[] {
  const problems: string[] = []
  for (const { rel, abs } of files) {
    if (!CHECKED_DIRS.some((d) => rel.startsWith(`${d}/`)) || PORTS.includes(rel) || !rel.endsWith('.ts')) continue
    for (const f of longFunctions(rel, readFileSync(abs, 'utf8')))
      problems.push(`${f.file}:${f.line}: ${f.name} spans ${f.lines} lines; at most ${MAX_LINES} (scripts/reconciler-shape.ts)`)
  }
  return problems
}

/** The one file of the reconciler that writes TemplateInstances. */
export const INSTANCE_WRITER = 'src/controller/instance/record.ts'
const INSTANCE_WRITE = /\binstanceStatusPath\b|\bwriteStatusVersioned\b|request\(\s*'(?:PATCH|PUT|POST|DELETE)'\s*,\s*instancePath\(/

/** Lines of a reconciler file other than the InstanceRecord's that write a TemplateInstance, as lint messages. */
export function instanceWrites(rel: string, text: string): string[] {
  if (!/^src\/(controller|reconciler)\//.test(rel) || rel === INSTANCE_WRITER || rel === 'src/controller/status.ts') return []
  const out: string[] = []
  text.split('\n').forEach((line, i) => {
    if (INSTANCE_WRITE.test(line)) out.push(`${rel}:${i + 1}: writes a TemplateInstance; only ${INSTANCE_WRITER} may (its InstanceRecord)`)
  })
  return out
}
