// The import-direction check of `npm run lint` (scripts/import-directions.ts):
// each kind of import is seen, each rule catches its breach and names itself
// and the file, allowed directions pass, and a rule over a missing folder is
// reported instead of checking nothing.

import t from 'tap'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkFile, checkRules, formatBreach, IMPORT_RULES, importsOf } from '../../scripts/import-directions.ts'

t.test('every form of import is found, with its line; packages are not', async (t) => {
  const text = [
    "import { a } from '../controller/a.ts'",
    "import type { B } from '../controller/b.ts'",
    "export { c } from '../controller/c.ts'",
    "const d = await import('../controller/d.ts')",
    "const w = new Worker(new URL('../controller/worker.ts', import.meta.url))",
    "import pino from 'pino'",
    "import { readFileSync } from 'node:fs'",
  ].join('\n')
  t.strictSame(importsOf(text), [
    { specifier: '../controller/a.ts', line: 1 },
    { specifier: '../controller/b.ts', line: 2 },
    { specifier: '../controller/c.ts', line: 3 },
    { specifier: '../controller/d.ts', line: 4 },
    { specifier: '../controller/worker.ts', line: 5 },
  ])
})

t.test('the webhook and the reconciler do not import each other', async (t) => {
  const w = checkFile('src/webhook/metrics.ts', "import { Registry } from '../controller/metrics.ts'\n")
  t.equal(w.length, 1)
  t.equal(w[0]?.rule.name, 'webhook-apart')
  t.equal(w[0]?.target, 'src/controller/metrics.ts')
  const message = formatBreach(w[0] as (typeof w)[number])
  t.match(message, /^src\/webhook\/metrics\.ts:1: imports src\/controller\/metrics\.ts/, 'the message starts with the file and line')
  t.match(message, /rule "webhook-apart"/, 'and names the rule')
  t.match(message, /docs\/import-directions\.md/)

  t.equal(checkFile('src/webhook/a.ts', "import '../reconciler/wiring.ts'\n")[0]?.rule.name, 'webhook-apart')
  t.equal(checkFile('src/reconciler/main.ts', "import { x } from '../webhook/health.ts'\n")[0]?.rule.name, 'reconciler-apart')
  t.equal(checkFile('src/controller/queue.ts', "import type { X } from '../webhook/app.ts'\n")[0]?.rule.name, 'reconciler-apart')
})

t.test('the pure core imports no I/O edge', async (t) => {
  for (const [file, spec] of [
    ['src/api/meta.ts', '../kube/client.ts'],
    ['src/drift/compare.ts', '../controller/instance.ts'],
    ['src/render/render.ts', '../cli/yaml.ts'],
    ['src/helm/render/engine.ts', '../../local/controlplane.ts'],
    ['src/helm/chart/load.ts', '../../webhook/app.ts'],
    ['src/admission/decide.ts', '../reconciler/wiring.ts'],
  ] as const) {
    const b = checkFile(file, `import { x } from '${spec}'\n`)
    t.equal(b.length, 1, `${file} -> ${spec}`)
    t.equal(b[0]?.rule.name, 'pure-core')
  }
})

t.test('the ground floor, the apply engine and chart sources stay where they are', async (t) => {
  for (const [file, spec, rule] of [
    ['src/encoding/yaml.ts', '../render/render.ts', 'encoding-ground'],
    ['src/encoding/gostrconv.ts', '../gotemplate/strconv.ts', 'encoding-ground'],
    ['src/render/helm.ts', '../helm/source/errors.ts', 'pure-core'],
    ['src/helm/render/engine.ts', '../../apply/plan.ts', 'pure-core'],
    ['src/apply/plan.ts', '../controller/instance.ts', 'apply-engine'],
    ['src/apply/diff.ts', '../cli/args.ts', 'apply-engine'],
    ['src/helm/source/fetcher.ts', '../render/helm.ts', 'helm-source'],
    ['src/helm/source/fetcher.ts', '../../reconciler/helm.ts', 'helm-source'],
  ] as const) {
    const b = checkFile(file, `import { x } from '${spec}'\n`)
    t.equal(b[0]?.rule.name, rule, `${file} -> ${spec}`)
  }
})

t.test('telemetry depends on neither process', async (t) => {
  t.equal(checkFile('src/telemetry/health.ts', "import '../webhook/app.ts'\n")[0]?.rule.name, 'telemetry-neutral')
  t.equal(checkFile('src/telemetry/metrics.ts', "import '../controller/queue.ts'\n")[0]?.rule.name, 'telemetry-neutral')
})

t.test('allowed directions pass', async (t) => {
  const allowed: [string, string][] = [
    ['src/webhook/server.ts', '../telemetry/health.ts'],
    ['src/reconciler/main.ts', '../telemetry/metrics.ts'],
    ['src/reconciler/main.ts', '../controller/manager.ts'],
    ['src/controller/instance.ts', '../kube/objects.ts'],
    ['src/webhook/app.ts', '../admission/decide.ts'],
    ['src/admission/decide.ts', '../drift/compare.ts'],
    ['src/helm/render/engine.ts', '../../gotemplate/index.ts'],
    ['src/render/helm.ts', '../encoding/url.ts'],
    ['src/helm/render/manifests.ts', '../../encoding/yaml.ts'],
    ['src/cli/diff.ts', '../apply/plan.ts'],
    ['src/controller/instance.ts', '../apply/apply.ts'],
    ['src/apply/diff.ts', '../kube/objects.ts'],
    ['src/helm/source/http.ts', '../chart/load.ts'],
    ['src/cli/render.ts', '../reconciler/wiring.ts'],
    ['src/main.ts', './webhook/main.ts'],
    ['src/webhook/app.ts', './metrics.ts'],
  ]
  for (const [file, spec] of allowed) t.strictSame(checkFile(file, `import { x } from '${spec}'\n`), [], `${file} -> ${spec}`)
  t.strictSame(
    checkFile('src/webhook-extra/a.ts', "import '../controller/x.ts'\n"),
    [],
    'a folder that only starts with a rule folder name is not in it',
  )
})

t.test('a rule naming a folder that does not exist is itself a problem', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'import-rules-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  mkdirSync(join(root, 'src/a'), { recursive: true })
  const rules = [{ name: 'a-apart', from: ['src/a'], forbidden: ['src/b'], reason: 'r' }]
  t.strictSame(checkRules(root, rules), [
    'scripts/import-directions.ts: rule "a-apart" names src/b, which is not a folder; update the rule',
  ])
  mkdirSync(join(root, 'src/b'))
  t.strictSame(checkRules(root, rules), [])
  t.strictSame(checkRules(new URL('../..', import.meta.url).pathname, IMPORT_RULES), [], "this repository's rules name real folders")
})
