// Project lint: rules that the type checker does not enforce and that matter
// here. Kept dependency-free so that it runs wherever the tests run.
//  - no eval / new Function / vm anywhere in src (user input is never code)
//  - no `any` type in src
//  - relative imports name their .ts file (Node runs the sources directly)
//  - no console.* in src outside the CLI entry points (logs go through pino)
//  - files end with a newline and contain no tab indentation or trailing spaces

import { readdirSync, readFileSync, lstatSync } from 'node:fs'
import { join, relative } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const dirs = ['src', 'test', 'bench', 'scripts', 'bin']
const problems: string[] = []

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
    else if (st.isFile() && /\.(ts|js)$/.test(e) && st.size < 2_000_000) out.push(p)
  }
}

const files: string[] = []
for (const d of dirs) walk(join(root, d), files)

const CONSOLE_ALLOWED = /^src\/(main|cli\/)|^src\/cli\.ts$/

for (const file of files) {
  const rel = relative(root, file)
  const text = readFileSync(file, 'utf8')
  const lines = text.split('\n')
  if (text.length > 0 && !text.endsWith('\n')) problems.push(`${rel}: no newline at end of file`)
  lines.forEach((line, i) => {
    const at = `${rel}:${i + 1}`
    if (/[ \t]+$/.test(line)) problems.push(`${at}: trailing whitespace`)
    if (/^\t/.test(line)) problems.push(`${at}: tab indentation`)
    const imp = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/.exec(line)
    if (imp && !/\.(ts|js|json)$/.test(imp[1] ?? '')) problems.push(`${at}: relative import without file extension: ${imp[1]}`)
    if (rel.startsWith('src/')) {
      const code = line.replace(/\/\/.*$/, '').replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`/g, "''")
      if (/\beval\s*\(|\bnew\s+Function\s*\(|from\s+'node:vm'/.test(code))
        problems.push(`${at}: dynamic code evaluation is not allowed in src`)
      if (/(:\s*any\b|<any>|\bas\s+any\b|any\[\])/.test(code)) problems.push(`${at}: the any type is not allowed in src`)
      if (/\bconsole\.(log|error|warn|info|debug)\s*\(/.test(code) && !CONSOLE_ALLOWED.test(rel))
        problems.push(`${at}: use the logger, not console`)
    }
  })
}

if (problems.length > 0) {
  for (const p of problems) console.error(p)
  console.error(`lint: ${problems.length} problem(s) in ${files.length} files`)
  process.exit(1)
}
console.log(`lint: ${files.length} files clean`)
