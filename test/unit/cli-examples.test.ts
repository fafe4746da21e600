// The manifests people copy: every file in examples/ and every YAML block of
// the README that holds a Template and its TemplateInstance renders with
// `template-sync render`, read the way kubectl reads it (YAML 1.1). In
// particular a sync mode off is quoted everywhere, since a bare off is the
// boolean false to kubectl and the API server rejects it.

import t from 'tap'
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runRender } from '../../src/cli/render.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), 'ts-examples-'))

async function renderBoth(path: string): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  // One file holds both manifests; render picks the one document of each kind.
  const code = await runRender(
    ['--template', path, '--instance', path],
    {},
    {
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: (s: string) => (err += s) },
    },
  )
  return { code, out, err }
}

const BARE_OFF = /^\s*mode:\s*(off|Off|OFF)\s*(#.*)?$/m

const examples = readdirSync(join(root, 'examples')).filter((f) => f.endsWith('.yaml'))

t.test('there are examples for the three sync modes', async (t) => {
  const text = examples.map((f) => readFileSync(join(root, 'examples', f), 'utf8')).join('\n')
  for (const mode of ['"off"', 'revert', 'strict']) t.match(text, new RegExp(`^\\s*mode: ${mode}$`, 'm'), mode)
})

for (const f of examples) {
  t.test(`examples/${f} renders as kubectl would read it`, async (t) => {
    const path = join(root, 'examples', f)
    t.notMatch(readFileSync(path, 'utf8'), BARE_OFF, 'no bare mode: off')
    const r = await renderBoth(path)
    t.equal(r.code, 0, r.err)
    t.match(r.out, /^apiVersion: /, 'prints the rendered objects')
  })
}

t.test('the README quotes mode off and its Template examples render', async (t) => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  t.notMatch(readme, BARE_OFF, 'no bare mode: off')
  t.match(readme, /mode: "off"/, 'shows the quoted form')
  const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '')
  const pairs = blocks.filter((b) => /^kind: Template$/m.test(b) && /^kind: TemplateInstance$/m.test(b))
  t.ok(pairs.length > 0, 'the README has a Template with its instance')
  for (const [i, block] of pairs.entries()) {
    const path = join(scratch, `readme-${i}.yaml`)
    writeFileSync(path, block)
    const r = await renderBoth(path)
    t.equal(r.code, 0, `README block ${i}: ${r.err}`)
  }
})
