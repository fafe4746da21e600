// Project checks that neither tsc nor Biome makes (Biome formats, and lints
// `any` and console use; see biome.json):
//  - no eval / new Function / node:vm anywhere in src (user input is never code)
//  - relative imports name their .ts file (Node runs the sources directly)
//  - import directions between the parts of src (scripts/import-directions.ts)
//  - function length in the reconciler's pass and the apply engine (scripts/reconciler-shape.ts)
//  - one writer of TemplateInstances in the reconciler: src/controller/instance/record.ts

import { lstatSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { checkFile, checkRules, formatBreach } from './import-directions.ts'
import { checkFunctionLengths, instanceWrites } from './reconciler-shape.ts'

const root = new URL('..', import.meta.url).pathname
const dirs = ['src', 'test', 'bench', 'scripts', 'bin']
const problems: string[] = checkRules(root)

function walk(dir: string, out: string[]): void {
  let entries: string[]
  try {
    entries = readdirSync(dir)
  } catch {
    return
  }
  for (const e of entries) {
    if (e === 'node_modules' || (e === 'bin' && dir.endsWith('cluster')) || e.startsWith('.')) continue
    const p = join(dir, e)
    // lstat: never follow symlinks (tests create symlinked certificate dirs).
    const st = lstatSync(p)
    if (st.isDirectory()) walk(p, out)
    else if (st.isFile() && /\.(ts|js|mjs)$/.test(e) && st.size < 2_000_000) out.push(p)
  }
}

const files: string[] = []
for (const d of dirs) walk(join(root, d), files)

problems.push(...checkFunctionLengths(files.map((abs) => ({ abs, rel: relative(root, abs) }))))

for (const file of files) {
  const rel = relative(root, file)
  if (rel.startsWith('src/')) problems.push(...instanceWrites(rel, readFileSync(file, 'utf8')))
  const text = readFileSync(file, 'utf8')
  if (rel.startsWith('src/')) for (const b of checkFile(rel, text)) problems.push(formatBreach(b))
  const lines = text.split('\n')
  lines.forEach((line, i) => {
    const at = `${rel}:${i + 1}`
    const imp = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/.exec(line)
    if (imp && !/\.(ts|js|mjs|json)$/.test(imp[1] ?? '')) problems.push(`${at}: relative import without file extension: ${imp[1]}`)
    if (rel.startsWith('src/')) {
      const code = line.replace(/\/\/.*$/, '').replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`/g, "''")
      if (/\beval\s*\(|\bnew\s+Function\s*\(|from\s+'node:vm'/.test(code))
        problems.push(`${at}: dynamic code evaluation is not allowed in src`)
    }
  })
}

if (problems.length > 0) {
  for (const p of problems) console.error(p)
  console.error(`lint: ${problems.length} problem(s) in ${files.length} files`)
  process.exit(1)
}
console.log(`lint: ${files.length} files clean`)
