import t from 'tap'
import type { Template } from '../../src/api/template.ts'
import type { TemplateInstance } from '../../src/api/templateinstance.ts'
import { buildRenderContext } from '../../src/render/context.ts'
import { compileTemplate, renderInstance } from '../../src/render/render.ts'
import type { RenderResult } from '../../src/render/render.ts'
import type { ParamValue } from '../../src/render/types.ts'
import { execute, parse } from '../../src/gotemplate/index.ts'

const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition'])
const KNOWN = new Set(['ConfigMap', 'Secret', 'Service', 'Deployment', ...CLUSTER_SCOPED])

/** Discovery stand-in: known kinds by name; anything else unknown. */
function isNamespaced(_apiVersion: string, kind: string): boolean | undefined {
  if (!KNOWN.has(kind)) return undefined
  return !CLUSTER_SCOPED.has(kind)
}

function template(gotemplate: string | undefined): Template {
  const spec: Template['spec'] = {}
  if (gotemplate !== undefined) spec.gotemplate = gotemplate
  return { metadata: { name: 'web-cfg', namespace: 'platform' }, spec }
}

const instance: TemplateInstance = {
  metadata: { name: 'app1', namespace: 'team-a', labels: { tier: 'web' } },
  spec: { templateRef: { name: 'web-cfg', namespace: 'platform' } },
}

function render(gotemplate: string | undefined, values: Record<string, ParamValue> = {}): RenderResult {
  return renderInstance({ template: template(gotemplate), instance, values, isNamespaced })
}

function objects(r: RenderResult) {
  if (!r.ok) throw new Error(`expected success, got ${r.message}`)
  return r.objects
}

t.test('renders the documented example', async (t) => {
  const r = render(
    [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: {{ .instance.name }}-cfg',
      'data:',
      '  owner: {{ .parameters.owner | quote }}',
      '  replicas: {{ .parameters.replicas | quote }}',
      '  tier: {{ .instance.labels.tier }}',
      '  ns: {{ .instance.namespace }}',
    ].join('\n'),
    { owner: 'alice', replicas: '2' },
  )
  const [cm] = objects(r)
  t.strictSame(cm?.object, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'app1-cfg', namespace: 'team-a' },
    data: { owner: 'alice', replicas: '2', tier: 'web', ns: 'team-a' },
  })
  t.strictSame(cm?.ref, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', name: 'app1-cfg' })
  t.equal(cm?.key, '/v1/ConfigMap/team-a/app1-cfg')
  t.equal(cm?.gvk, '/v1/ConfigMap')
  t.equal(cm?.namespaced, true)
  t.equal(cm?.document, 1)
  t.same(r.ok && r.unknownKinds, [])
})

t.test('multi-document output, empty documents skipped', async (t) => {
  const r = render(
    [
      '---',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: {name: a}',
      '---',
      '{{- if false }}',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: {name: skipped}',
      '{{- end }}',
      '---',
      '# only a comment',
      '---',
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: web}',
      'spec: {replicas: 2}',
      '---',
    ].join('\n'),
  )
  const list = objects(r)
  t.strictSame(
    list.map((o) => [o.document, o.key]),
    [
      [1, '/v1/ConfigMap/team-a/a'],
      [2, 'apps/v1/Deployment/team-a/web'],
    ],
  )
})

t.test('lists and maps from parameters are Go values in the template', async (t) => {
  const r = render(
    [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: {name: x}',
      'data:',
      '  hosts: {{ join "," .parameters.hosts | quote }}',
      '  count: {{ len .parameters.hosts | quote }}',
      '  region: {{ .parameters.extra.region | quote }}',
      '  json: {{ toJson .parameters.extra | quote }}',
      '  num: {{ .parameters.extra.num | quote }}',
    ].join('\n'),
    { hosts: ['a', 'b'], extra: { region: 'eu', num: 3 } },
  )
  t.strictSame(objects(r)[0]?.object['data'], { hosts: 'a,b', count: '2', region: 'eu', json: '{"num":3,"region":"eu"}', num: '3' })
})

t.test('namespace defaulting', async (t) => {
  const r = render(
    [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: {name: defaulted}',
      '---',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: {name: explicit, namespace: other}',
      '---',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: {name: empty-ns, namespace: ""}',
      '---',
      'apiVersion: v1',
      'kind: Namespace',
      'metadata: {name: team-b}',
      '---',
      'apiVersion: rbac.authorization.k8s.io/v1',
      'kind: ClusterRole',
      'metadata: {name: reader, namespace: ignored}',
      '---',
      'apiVersion: example.com/v1',
      'kind: Widget',
      'metadata: {name: w}',
      '---',
      'apiVersion: example.com/v1',
      'kind: Gadget',
      'metadata: {name: g}',
      '---',
      'apiVersion: example.com/v2',
      'kind: Widget',
      'metadata: {name: w2, namespace: given}',
    ].join('\n'),
  )
  t.ok(r.ok)
  if (!r.ok) return
  const byName = new Map(r.objects.map((o) => [o.object.metadata.name, o]))
  t.equal(byName.get('defaulted')?.object.metadata.namespace, 'team-a', 'namespaced kind without namespace: the instance namespace')
  t.equal(byName.get('explicit')?.object.metadata.namespace, 'other', 'an explicit namespace is kept')
  t.equal(byName.get('empty-ns')?.object.metadata.namespace, 'team-a', 'an empty namespace counts as none')
  t.equal(byName.get('team-b')?.object.metadata.namespace, undefined, 'cluster-scoped kinds are left alone')
  t.equal(byName.get('team-b')?.namespaced, false)
  t.equal(byName.get('reader')?.object.metadata.namespace, 'ignored', 'a cluster-scoped object is not edited')
  t.equal(byName.get('reader')?.key, 'rbac.authorization.k8s.io/v1/ClusterRole//reader', 'but its identity has no namespace')
  t.equal(byName.get('w')?.object.metadata.namespace, undefined, 'an unknown kind is left as written')
  t.equal(byName.get('w')?.namespaced, undefined)
  t.equal(byName.get('w2')?.key, 'example.com/v2/Widget/given/w2')
  t.strictSame(r.unknownKinds, ['example.com/v1/Widget', 'example.com/v1/Gadget', 'example.com/v2/Widget'])
})

interface FailCase {
  readonly name: string
  readonly gotemplate: string | undefined
  readonly message: string | RegExp
}

const failures: FailCase[] = [
  {
    name: 'a Template without gotemplate',
    gotemplate: undefined,
    message: 'Template platform/web-cfg has no spec.gotemplate; only gotemplate Templates are rendered',
  },
  { name: 'a parse error', gotemplate: 'a: {{ .instance.name ', message: /^template: web-cfg:1: / },
  { name: 'an undefined function', gotemplate: 'a: {{ toYaml .instance }}', message: 'template: web-cfg:1: function "toYaml" not defined' },
  { name: 'env is not available', gotemplate: 'a: {{ env "HOME" }}', message: 'template: web-cfg:1: function "env" not defined' },
  {
    name: 'a missing parameter (missingkey=error)',
    gotemplate: 'a: {{ .parameters.nope }}',
    message: /^template: web-cfg:1:\d+: executing "web-cfg" at <\.parameters\.nope>: map has no entry for key "nope"/,
  },
  { name: 'a failing function', gotemplate: '{{ fail "stop here" }}', message: /stop here/ },
  {
    name: 'invalid YAML',
    gotemplate: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nb: [\n',
    message: /^rendered document 2: line \d+: /,
  },
  { name: 'a list document', gotemplate: '- a\n- b', message: 'rendered document 1 (line 1): is a list, not a mapping' },
  { name: 'a scalar document', gotemplate: 'hello', message: 'rendered document 1 (line 1): is a string, not a mapping' },
  {
    name: 'no apiVersion',
    gotemplate: 'kind: ConfigMap\nmetadata: {name: a}',
    message: 'rendered document 1 (line 1): apiVersion is missing',
  },
  {
    name: 'a non-string apiVersion',
    gotemplate: 'apiVersion: 1\nkind: ConfigMap\nmetadata: {name: a}',
    message: 'rendered document 1 (line 1): apiVersion is missing',
  },
  { name: 'no kind', gotemplate: 'apiVersion: v1\nmetadata: {name: a}', message: 'rendered document 1 (line 1): kind is missing' },
  {
    name: 'an apiVersion with two slashes',
    gotemplate: 'apiVersion: a/b/c\nkind: X\nmetadata: {name: a}',
    message: /^rendered document 1 \(line 1, a\/b\/c X\): apiVersion "a\/b\/c" is not "version" or "group\/version"/,
  },
  {
    name: 'no metadata',
    gotemplate: 'apiVersion: v1\nkind: ConfigMap',
    message: 'rendered document 1 (line 1, v1 ConfigMap): metadata is missing or not a mapping',
  },
  {
    name: 'no metadata.name, in the second document',
    gotemplate: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Secret\nmetadata: {labels: {a: b}}',
    message: 'rendered document 2 (line 5, v1 Secret): metadata.name is missing',
  },
  {
    name: 'generateName instead of name',
    gotemplate: 'apiVersion: v1\nkind: Secret\nmetadata: {generateName: s-}',
    message: /metadata\.name is missing \(generateName cannot be used: objects are applied by name\)/,
  },
  {
    name: 'an unquoted YAML 1.1 boolean as name',
    gotemplate: 'apiVersion: v1\nkind: Namespace\nmetadata: {name: no}',
    message:
      'rendered document 1 (line 1, v1 Namespace): metadata.name must be a string, got false (an unquoted YAML value such as n, no, off or 0644 is not a string: quote it)',
  },
  {
    name: 'a name with a slash',
    gotemplate: 'apiVersion: v1\nkind: Secret\nmetadata: {name: a/b}',
    message: /metadata\.name "a\/b" must not contain "\/"/,
  },
  {
    name: 'a non-string namespace',
    gotemplate: 'apiVersion: v1\nkind: Secret\nmetadata: {name: a, namespace: [x]}',
    message: /metadata\.namespace \["x"\] is not a namespace name/,
  },
  {
    name: 'the same object twice',
    gotemplate:
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: team-a}',
    message: 'rendered documents 1 and 3 are the same object v1 ConfigMap team-a/a; each object may be rendered once',
  },
  {
    name: 'the same object in two versions',
    gotemplate:
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\n---\napiVersion: apps/v1beta1\nkind: Deployment\nmetadata: {name: w}',
    message: /rendered documents 1 and 2 are the same object apps\/v1beta1 Deployment team-a\/w/,
  },
  {
    name: 'the same cluster-scoped object twice, namespace or not',
    gotemplate:
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: ns1}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ns1, namespace: x}',
    message: /rendered documents 1 and 2 are the same object v1 Namespace ns1;/,
  },
]

for (const c of failures) {
  t.test(`fails: ${c.name}`, async (t) => {
    const r = render(c.gotemplate)
    t.equal(r.ok, false)
    if (r.ok) return
    t.equal(r.reason, 'TemplateExecutionFailed')
    if (typeof c.message === 'string') t.equal(r.message, c.message)
    else t.match(r.message, c.message)
  })
}

t.test('the same name in different namespaces or kinds is no duplicate', async (t) => {
  const r = render(
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: b}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: a}',
  )
  t.equal(objects(r).length, 3)
})

t.test('more objects than status.renderedResources can hold', async (t) => {
  const r = render('{{ range until 501 }}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: "c{{ . }}"}\n{{ end }}')
  t.equal(r.ok, false)
  if (!r.ok) t.equal(r.message, 'the Template renders 501 objects; at most 500 are supported (status.renderedResources)')
})

t.test('a precompiled template is used as given', async (t) => {
  const compiled = compileTemplate(template('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ .instance.name }}}'))
  const r = renderInstance({ template: template('ignored: {{'), instance, values: {}, compiled, isNamespaced })
  t.equal(objects(r)[0]?.object.metadata.name, 'app1')
})

t.test('compileTemplate throws for a Template without gotemplate', async (t) => {
  t.throws(() => compileTemplate(template(undefined)), { message: 'Template platform/web-cfg has no spec.gotemplate' })
})

t.test('rendering twice gives equal, independent objects', async (t) => {
  const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}'
  const a = objects(render(text))[0]
  const b = objects(render(text))[0]
  t.strictSame(a?.object, b?.object)
  t.not(a?.object, b?.object)
})

t.test('the render context', async (t) => {
  const data = buildRenderContext(
    { metadata: { name: 'app1', namespace: 'team-a' } },
    { s: 'x', l: ['a', { b: 1 }], m: { k: [true, null] }, ['__proto__']: 'p' },
  )
  const show = (expr: string) => execute(parse('t', `{{ ${expr} }}`), data)
  t.equal(show('.instance.name'), 'app1')
  t.equal(show('.instance.namespace'), 'team-a')
  t.equal(show('len .instance.labels'), '0', 'an instance without labels gets an empty map')
  t.equal(show('.parameters.s'), 'x')
  t.equal(show('index .parameters.l 1 "b"'), '1')
  t.equal(show('printf "%T" (index .parameters.l 1 "b")'), 'float64', 'JSON numbers are float64, as in Go')
  t.equal(show('index .parameters.m "k"'), '[true <nil>]')
  t.equal(show('index .parameters "__proto__"'), 'p')
  t.equal(show('len .'), '2', 'only parameters and instance')
})
