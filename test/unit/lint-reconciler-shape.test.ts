// The shape checks of the reconciler (scripts/reconciler-shape.ts), and that
// the tree passes them today.

import t from 'tap'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { checkFunctionLengths, instanceWrites, longFunctions, MAX_LINES } from '../../scripts/reconciler-shape.ts'

const root = new URL('../..', import.meta.url).pathname

t.test('longFunctions measures functions, methods, constructors and arrows by their lines', async (t) => {
  const body = (n: number): string => Array.from({ length: n }, (_, i) => `  x += ${i}`).join('\n')
  const text = [
    `function short() {\n${body(3)}\n}`,
    `function long() {\n${body(MAX_LINES)}\n}`,
    `class C {\n  m() {\n${body(MAX_LINES)}\n  }\n  constructor() {\n${body(2)}\n  }\n}`,
    `const arrow = () => {\n${body(MAX_LINES)}\n}`,
  ].join('\n')
  t.same(
    longFunctions('src/controller/x.ts', text).map((f) => [f.name, f.lines]),
    [
      ['long', MAX_LINES + 2],
      ['m', MAX_LINES + 2],
      ['arrow', MAX_LINES + 2],
    ],
  )
})

t.test('only the InstanceRecord writes a TemplateInstance', async (t) => {
  const write = "await client.request('PATCH', instancePath(ns, name), { body })"
  t.equal(instanceWrites('src/controller/instance/objects.ts', write).length, 1)
  t.equal(instanceWrites('src/controller/manager.ts', 'const p = instanceStatusPath(ns, name)').length, 1)
  t.same(instanceWrites('src/controller/instance/record.ts', write), [])
  t.same(instanceWrites('src/controller/manager.ts', 'await client.getOrUndefined(instancePath(ns, name))'), [], 'a read is no write')
  t.same(instanceWrites('src/cli/local.ts', write), [], 'outside the reconciler')
})

t.test('the tree passes both checks', async (t) => {
  const files: { rel: string; abs: string }[] = []
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir)) {
      const abs = join(dir, e)
      if (statSync(abs).isDirectory()) walk(abs)
      else if (abs.endsWith('.ts')) files.push({ abs, rel: relative(root, abs) })
    }
  }
  walk(join(root, 'src'))
  t.same(checkFunctionLengths(files), [])
  t.same(
    files.flatMap((f) => instanceWrites(f.rel, readFileSync(f.abs, 'utf8'))),
    [],
  )
})
