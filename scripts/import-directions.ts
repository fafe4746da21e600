// Which parts of src/ may import which (docs/import-directions.md), checked by
// `npm run lint`. Every import counts: static, type-only, re-exports, dynamic
// import() and worker files named with new URL(..., import.meta.url).

import { existsSync, statSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import ts from 'typescript'

export interface ImportRule {
  /** Short name printed with each breach. */
  readonly name: string
  /** Folders (from the repository root) whose files the rule constrains. */
  readonly from: readonly string[]
  /** Folders those files must not import from. */
  readonly forbidden: readonly string[]
  /** Why, in one line. */
  readonly reason: string
}

const WEBHOOK = ['src/webhook']
const RECONCILER = ['src/controller', 'src/reconciler']
const PURE_CORE = [
  'src/api',
  'src/fieldpath',
  'src/drift',
  'src/admission',
  'src/gotemplate',
  'src/render',
  'src/helm/chart',
  'src/helm/render',
]
const IO_EDGES = ['src/kube', 'src/helm/source', 'src/apply', 'src/webhook', 'src/controller', 'src/reconciler', 'src/cli', 'src/local']
const PROCESSES = [...WEBHOOK, ...RECONCILER, 'src/cli', 'src/local']
/** Every top-level part of src but the ground floor. */
const ABOVE_GROUND = [...PURE_CORE, 'src/outputs', 'src/certs', 'src/telemetry', 'src/kube', 'src/helm/source', 'src/apply', ...PROCESSES]

export const IMPORT_RULES: readonly ImportRule[] = [
  {
    name: 'webhook-apart',
    from: WEBHOOK,
    forbidden: RECONCILER,
    reason: 'the webhook process must not load the reconciler; shared code goes to src/telemetry or the pure core',
  },
  {
    name: 'reconciler-apart',
    from: RECONCILER,
    forbidden: WEBHOOK,
    reason: 'the reconciler process must not load the webhook; shared code goes to src/telemetry or the pure core',
  },
  {
    name: 'pure-core',
    from: PURE_CORE,
    forbidden: IO_EDGES,
    reason: 'the pure core does no I/O and knows neither process, so it is unit-tested without an API server',
  },
  {
    name: 'encoding-ground',
    from: ['src/encoding'],
    forbidden: ABOVE_GROUND,
    reason: 'text and number encodings are the ground floor: everything may use them, they use nothing of ours',
  },
  {
    name: 'apply-engine',
    from: ['src/apply'],
    forbidden: PROCESSES,
    reason: 'the apply engine is a library the reconciler and the CLI both call; it knows neither',
  },
  {
    name: 'helm-source',
    from: ['src/helm/source'],
    forbidden: [...PROCESSES, 'src/apply', 'src/helm/render', 'src/render'],
    reason: 'fetching charts is network I/O below rendering: renderers are handed what it fetched',
  },
  {
    name: 'telemetry-neutral',
    from: ['src/telemetry'],
    forbidden: [...WEBHOOK, ...RECONCILER, 'src/cli', 'src/local'],
    reason: 'telemetry serves both processes and must depend on neither',
  },
]

export interface Breach {
  readonly rule: ImportRule
  /** Repository-relative file and 1-based line of the import. */
  readonly file: string
  readonly line: number
  readonly specifier: string
  /** The imported file, repository-relative. */
  readonly target: string
}

const within = (path: string, dirs: readonly string[]): string | undefined => dirs.find((d) => path === d || path.startsWith(`${d}/`))

/** Relative module specifiers of one source text, with their lines. */
export function importsOf(text: string): { specifier: string; line: number }[] {
  const out: { specifier: string; line: number }[] = []
  const lineAt = (pos: number): number => text.slice(0, pos).split('\n').length
  for (const f of ts.preProcessFile(text, true, true).importedFiles) out.push({ specifier: f.fileName, line: lineAt(f.pos) })
  // Worker entry points are loaded by URL, not by an import statement.
  for (const m of text.matchAll(/new URL\(\s*(['"])([^'"]+)\1\s*,\s*import\.meta\.url\s*\)/g))
    out.push({ specifier: m[2] as string, line: lineAt(m.index) })
  return out.filter((i) => i.specifier.startsWith('./') || i.specifier.startsWith('../'))
}

/** Breaches in one file (repository-relative path) with the given text. */
export function checkFile(file: string, text: string, rules: readonly ImportRule[] = IMPORT_RULES): Breach[] {
  const breaches: Breach[] = []
  for (const { specifier, line } of importsOf(text)) {
    const target = normalize(join(dirname(file), specifier))
    for (const rule of rules) {
      if (within(file, rule.from) === undefined) continue
      if (within(target, rule.forbidden) !== undefined) breaches.push({ rule, file, line, specifier, target })
    }
  }
  return breaches
}

/** Problems with the rules themselves: a folder that does not exist makes a rule check nothing. */
export function checkRules(root: string, rules: readonly ImportRule[] = IMPORT_RULES): string[] {
  const problems: string[] = []
  for (const rule of rules) {
    for (const dir of [...rule.from, ...rule.forbidden]) {
      const abs = join(root, dir)
      if (!existsSync(abs) || !statSync(abs).isDirectory())
        problems.push(`scripts/import-directions.ts: rule "${rule.name}" names ${dir}, which is not a folder; update the rule`)
    }
  }
  return problems
}

export function formatBreach(b: Breach): string {
  return (
    `${b.file}:${b.line}: imports ${b.target} ('${b.specifier}'), which rule "${b.rule.name}" forbids: ` +
    `${b.rule.from.join(', ')} must not import ${b.rule.forbidden.join(', ')} (${b.rule.reason}; docs/import-directions.md)`
  )
}
