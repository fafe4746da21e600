// values.schema.json patterns run on Go's regexp, as in Helm: Go syntax, and
// time linear in the input even for a pattern a backtracking engine chokes on.

import t from 'tap'
import { defaultCapabilities, HelmRenderError, loadChartFiles, renderChart } from '../../src/helm/index.ts'
import { withGoPatterns } from '../../src/helm/render/schema-patterns.ts'

const CHART = 'apiVersion: v2\nname: demo\nversion: 1.0.0\n'

async function renderWith(schema: object, values: Record<string, unknown>) {
  const files = {
    'Chart.yaml': CHART,
    'values.schema.json': JSON.stringify(schema),
    'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n',
  }
  const chart = await loadChartFiles(
    Object.entries(files).map(([name, data]) => ({ name, data: Buffer.from(data) })),
    { helm: 'v3' },
  )
  return () => renderChart({ chart, helm: 'v3', releaseName: 'rel', namespace: 'ns1', values, capabilities: defaultCapabilities() })
}

function errorOf(fn: () => unknown): string {
  try {
    fn()
  } catch (e) {
    if (e instanceof HelmRenderError) return e.message
    throw e
  }
  return ''
}

t.test('a pattern that backtracks exponentially in JavaScript is judged at once', async (t) => {
  const evil = { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } }
  const run = await renderWith(evil, { name: `${'a'.repeat(5000)}!` })
  const started = performance.now()
  const msg = errorOf(run)
  t.ok(performance.now() - started < 5000, 'judged without backtracking')
  t.match(msg, /at '\/name'/, 'the value is reported as not matching')
  const ok = await renderWith(evil, { name: 'a'.repeat(5000) })
  t.equal(errorOf(ok), '', 'a matching value passes')
})

t.test("patterns have Go's syntax, as Helm's validator compiles them", async (t) => {
  const caseless = { type: 'object', properties: { tier: { type: 'string', pattern: '(?i)^gold$' } } }
  t.equal(errorOf(await renderWith(caseless, { tier: 'GOLD' })), '', '(?i) is a Go flag group')
  t.match(errorOf(await renderWith(caseless, { tier: 'silver' })), /at '\/tier'/)
  const lookahead = { type: 'object', properties: { x: { type: 'string', pattern: '^(?=a)' } } }
  t.match(
    errorOf(await renderWith(lookahead, { x: 'a' })),
    /values\.schema\.json: error parsing regexp: invalid or unsupported Perl syntax/,
    'lookaround is refused as in Go',
  )
  const keys = { type: 'object', patternProperties: { '^x-\\d+$': { type: 'integer' } }, additionalProperties: false }
  t.equal(errorOf(await renderWith(keys, { 'x-1': 2 })), '')
  t.match(errorOf(await renderWith(keys, { 'x-1': 'two' })), /at '\/x-1'/)
  t.match(errorOf(await renderWith(keys, { y: 1 })), /additional properties 'y' not allowed/)
})

t.test('the global RegExp is put back, also when validation throws', async (t) => {
  const original = globalThis.RegExp
  t.throws(() =>
    withGoPatterns(() => {
      t.not(globalThis.RegExp, original, 'swapped inside')
      throw new Error('boom')
    }),
  )
  t.equal(globalThis.RegExp, original)
  t.equal(
    withGoPatterns(() => 42),
    42,
  )
  t.equal(globalThis.RegExp, original)
})
