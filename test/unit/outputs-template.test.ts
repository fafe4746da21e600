import t from 'tap'
import { OutputTemplateError, parameterReferences, parseSingleExpression, parseTemplate } from '../../src/outputs/template.ts'
import { formatNodes, renderTemplate } from '../../src/outputs/values.ts'

interface SplitCase {
  name: string
  template: string
  want: { text?: string; path?: string; multi?: boolean }[]
}

const splits: SplitCase[] = [
  { name: 'text and one expression', template: '{.instance.name}-svc', want: [{ path: '.instance.name', multi: false }, { text: '-svc' }] },
  { name: 'only text', template: 'plain', want: [{ text: 'plain' }] },
  {
    name: 'two expressions around text',
    template: 'a{.x}b{.y[0]}c',
    want: [{ text: 'a' }, { path: '.x', multi: false }, { text: 'b' }, { path: '.y[0]', multi: false }, { text: 'c' }],
  },
  { name: 'a leading $ is the root', template: '{$.metadata.name}', want: [{ path: '.metadata.name', multi: false }] },
  { name: 'a wildcard can select several nodes', template: '{.items[*].ip}', want: [{ path: '.items[*].ip', multi: true }] },
  { name: 'recursive descent can select several nodes', template: '{..ip}', want: [{ path: '..ip', multi: true }] },
  { name: 'a slice can select several nodes', template: '{.a[0:2]}', want: [{ path: '.a[0:2]', multi: true }] },
  { name: 'a union can select several nodes', template: '{.a[0,1]}', want: [{ path: '.a[0,1]', multi: true }] },
  { name: 'a negative index selects one node', template: '{.a[-1]}', want: [{ path: '.a[-1]', multi: false }] },
  {
    name: 'a brace inside a quoted key belongs to the key',
    template: "{.metadata.labels['a}b']}",
    want: [{ path: ".metadata.labels['a}b']", multi: false }],
  },
  { name: 'spaces around the expression are trimmed', template: '{ .a }', want: [{ path: '.a', multi: false }] },
]

t.test('parseTemplate splits text and {expression} parts', async (t) => {
  for (const c of splits) {
    const parts = parseTemplate(c.template).map((p) => (p.kind === 'text' ? { text: p.text } : { path: p.path, multi: p.multi }))
    t.same(parts, c.want, c.name)
  }
})

const invalid: { name: string; template: string; match: RegExp }[] = [
  { name: 'filter expressions are refused', template: '{.items[?(@.name=="x")].ip}', match: /filter expressions/ },
  { name: 'script expressions are refused', template: '{.items[(@.length-1)]}', match: /script expressions/ },
  { name: 'range is refused', template: '{range .items[*]}{.name}{end}', match: /forEach, not range/ },
  { name: 'an unterminated brace', template: '{.a', match: /unterminated/ },
  { name: 'an empty expression', template: 'x{}', match: /empty expression/ },
  { name: 'an expression without a leading dot', template: '{metadata.name}', match: /must start with "\."/ },
  { name: 'a nested brace', template: '{.a{.b}}', match: /inside an expression/ },
  { name: 'jsonpath-plus extensions are refused', template: '{.a^}', match: /unexpected/ },
  { name: 'a negative slice step is refused', template: '{.a[::-1]}', match: /step must be positive/ },
]

t.test('parseTemplate refuses what it cannot evaluate safely', async (t) => {
  for (const c of invalid) {
    t.throws(() => parseTemplate(c.template), c.match, c.name)
    t.throws(() => parseTemplate(c.template), OutputTemplateError, `${c.name}: OutputTemplateError`)
  }
})

t.test('parseSingleExpression wants exactly one expression', async (t) => {
  t.equal(parseSingleExpression('{.spec.ports}').path, '.spec.ports')
  t.throws(() => parseSingleExpression('x{.spec.ports}'), /single \{expression\}/)
  t.throws(() => parseSingleExpression('{.a}{.b}'), /single \{expression\}/)
})

t.test('parameterReferences names the parameters a template reads', async (t) => {
  const cases: { template: string; want: { all: boolean; names: string[] } }[] = [
    { template: '{.instance.name}-svc', want: { all: false, names: [] } },
    { template: '{.parameters.svc}-{.parameters.env}', want: { all: false, names: ['svc', 'env'] } },
    { template: "{.parameters['svc'].x}", want: { all: false, names: ['svc'] } },
    { template: '{.parameters}', want: { all: true, names: [] } },
    { template: '{.parameters.*}', want: { all: true, names: [] } },
    { template: '{..svc}', want: { all: true, names: [] } },
    { template: '{.}', want: { all: true, names: [] } },
    { template: 'literal', want: { all: false, names: [] } },
  ]
  for (const c of cases) t.same(parameterReferences(parseTemplate(c.template)), c.want, c.template)
})

t.test('values follow the single/multi rule', async (t) => {
  const obj = {
    s: 'x',
    n: 80,
    f: 1.5,
    b: true,
    m: { a: 1 },
    l: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }],
    one: [{ ip: '10.0.0.9' }],
    nul: null,
  }
  const cases: { template: string; want: string | undefined }[] = [
    { template: '{.s}', want: 'x' },
    { template: '{.n}', want: '80' },
    { template: '{.f}', want: '1.5' },
    { template: '{.b}', want: 'true' },
    { template: '{.m}', want: '{"a":1}' },
    { template: '{.l[*].ip}', want: '["10.0.0.1","10.0.0.2"]' },
    { template: '{.one[*].ip}', want: '["10.0.0.9"]' },
    { template: '{.l[0].ip}', want: '10.0.0.1' },
    { template: '{.s}:{.n}', want: 'x:80' },
    { template: '{.missing}', want: undefined },
    { template: '{.nul}', want: undefined },
    { template: '{.s.length}', want: undefined },
  ]
  for (const c of cases) {
    const r = renderTemplate(parseTemplate(c.template), obj)
    t.same(r.ok ? r.text : undefined, c.want, c.template)
  }
  t.equal(formatNodes([], true), '[]')
})

t.test('{.} selects a scalar forEach element itself', async (t) => {
  t.same(renderTemplate(parseTemplate('{.}'), 'x'), { ok: true, text: 'x' })
  t.same(renderTemplate(parseTemplate('{.}'), 80), { ok: true, text: '80' })
  t.same(renderTemplate(parseTemplate('{.}'), { a: 1 }), { ok: true, text: '{"a":1}' })
  t.same(renderTemplate(parseTemplate('{.a}'), 'x'), { ok: false, unmatched: '{.a}' })
  t.same(renderTemplate(parseTemplate('{.}'), null), { ok: false, unmatched: '{.}' })
})
