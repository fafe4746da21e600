import t from 'tap'
import { evaluateObjectField } from '../../src/render/objectfield.ts'
import { JsonPathError, parseObjectFieldPath, toJsonPathPlus } from '../../src/render/jsonpath.ts'
import { SourceError } from '../../src/render/sources.ts'

const service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: {
    name: 'lb',
    namespace: 'team-a',
    labels: { 'app.kubernetes.io/name': 'web', '*': 'star', 'a,b': 'comma' },
    annotations: { 'example.com/owner': 'alice' },
  },
  spec: {
    clusterIP: '10.0.0.1',
    ports: [
      { name: 'http', port: 80, targetPort: 8080 },
      { name: 'https', port: 443, targetPort: 8443 },
    ],
    sessionAffinity: '',
    weight: 0.5,
    big: 1e6,
    huge: 1e21,
    enabled: false,
    nothing: null,
  },
  status: { loadBalancer: { ingress: [{ ip: '203.0.113.7' }] } },
}

const list = {
  apiVersion: 'v1',
  kind: 'ServiceList',
  items: [
    { metadata: { name: 'a', namespace: 'x' }, spec: { replicas: 1 } },
    { metadata: { name: 'b', namespace: 'y' }, spec: { replicas: 3 } },
  ],
}

interface GetCase {
  readonly path: string
  readonly want: unknown
}

const gets: GetCase[] = [
  { path: '.spec.clusterIP', want: '10.0.0.1' },
  { path: '.status.loadBalancer.ingress[0].ip', want: '203.0.113.7' },
  { path: '.spec.ports[0].port', want: '80' },
  { path: '.spec.ports[-1].name', want: 'https' },
  { path: '.spec.weight', want: '0.5' },
  { path: '.spec.big', want: '1000000' },
  { path: '.spec.huge', want: '1e+21' },
  { path: '.spec.enabled', want: 'false' },
  { path: '.spec.sessionAffinity', want: '' },
  { path: ".metadata.labels['app.kubernetes.io/name']", want: 'web' },
  { path: '.metadata.labels.app\\.kubernetes\\.io/name', want: 'web' },
  { path: '.metadata.annotations["example.com/owner"]', want: 'alice' },
  { path: ".metadata.labels['*']", want: 'star' },
  { path: '.metadata.labels.\\*', want: 'star' },
  { path: '.spec.ports[*].port', want: [80, 443] },
  { path: '.spec.ports[0:1]', want: { name: 'http', port: 80, targetPort: 8080 } },
  { path: '.spec.ports[::2].name', want: 'http' },
  { path: '.spec.ports[0,1].name', want: ['http', 'https'] },
  { path: '..ip', want: '203.0.113.7' },
  { path: '.spec.ports[0]', want: { name: 'http', port: 80, targetPort: 8080 } },
  { path: '.status.loadBalancer', want: { ingress: [{ ip: '203.0.113.7' }] } },
  { path: '.metadata.labels.*', want: ['web', 'star', 'comma'] },
]

for (const c of gets) {
  t.test(`GET ${c.path}`, async (t) => {
    t.strictSame(evaluateObjectField(service, c.path, 'get'), c.want)
  })
}

t.test('"." selects the whole object, as a copy', async (t) => {
  const got = evaluateObjectField(service, '.', 'get')
  t.strictSame(got, service)
  t.not(got, service)
})

t.test('a composite result never aliases the source object', async (t) => {
  const src = structuredClone(service)
  const got = evaluateObjectField(src, '.spec.ports', 'get')
  t.ok(Array.isArray(got))
  if (Array.isArray(got)) {
    ;(got[0] as Record<string, unknown>)['port'] = 1
    t.equal(src.spec.ports[0]?.port, 80)
  }
})

interface ListCase {
  readonly path: string
  readonly want: unknown
}

const lists: ListCase[] = [
  { path: '.items[*].metadata.name', want: ['a', 'b'] },
  { path: '.items[*].spec.replicas', want: [1, 3] },
  { path: '.items[0].metadata.name', want: ['a'] },
  { path: '.items[1].metadata', want: [{ name: 'b', namespace: 'y' }] },
  { path: '.kind', want: ['ServiceList'] },
]

for (const c of lists) {
  t.test(`LIST ${c.path} is always a list`, async (t) => {
    t.strictSame(evaluateObjectField(list, c.path, 'list'), c.want)
  })
}

interface NoMatchCase {
  readonly name: string
  readonly obj: unknown
  readonly path: string
  readonly mode: 'get' | 'list'
}

const noMatches: NoMatchCase[] = [
  { name: 'a missing field', obj: service, path: '.spec.missing', mode: 'get' },
  { name: 'a missing nested field', obj: service, path: '.status.conditions[0].type', mode: 'get' },
  { name: 'an index out of range', obj: service, path: '.spec.ports[5]', mode: 'get' },
  { name: 'a null value', obj: service, path: '.spec.nothing', mode: 'get' },
  { name: 'an empty list', obj: { items: [] }, path: '.items[*].metadata.name', mode: 'list' },
  { name: 'an empty slice', obj: service, path: '.spec.ports[1:0]', mode: 'get' },
  { name: 'an end index of zero', obj: service, path: '.spec.ports[0:0]', mode: 'get' },
  { name: '.length of a list', obj: service, path: '.spec.ports.length', mode: 'get' },
  { name: '.length of a string', obj: service, path: '.spec.clusterIP.length', mode: 'get' },
  { name: 'an index into a string', obj: service, path: '.spec.clusterIP[0]', mode: 'get' },
  { name: 'an inherited member', obj: service, path: '.constructor', mode: 'get' },
  { name: 'the prototype', obj: service, path: '.__proto__', mode: 'get' },
  { name: 'a map read as a list', obj: service, path: '.metadata[0]', mode: 'get' },
  { name: 'a field of a scalar', obj: service, path: '.spec.clusterIP.x', mode: 'get' },
  { name: 'a field name with a comma is not a union', obj: { a: { b: 1 } }, path: '.a.b\\,c', mode: 'get' },
  { name: 'a non-object', obj: 'text', path: '.a', mode: 'get' },
]

for (const c of noMatches) {
  t.test(`no match: ${c.name}`, async (t) => {
    t.throws(() => evaluateObjectField(c.obj, c.path, c.mode), { name: 'SourceError', message: /matched nothing|cannot be addressed/ })
  })
}

t.test('the no-match message names the path', async (t) => {
  t.throws(() => evaluateObjectField(service, '.spec.missing', 'get'), new SourceError('jsonPath ".spec.missing" matched nothing'))
})

interface SyntaxCase {
  readonly path: string
  readonly message: RegExp
}

const syntax: SyntaxCase[] = [
  { path: '{.spec.clusterIP}', message: /must not be wrapped in \{\}/ },
  { path: 'spec.clusterIP', message: /must start with "\."/ },
  { path: '$.spec', message: /must start with "\."/ },
  { path: '', message: /must start with "\."/ },
  { path: '.spec.', message: /a field name must follow "\."/ },
  { path: '.spec..', message: /a field name must follow "\."/ },
  { path: '.spec.ports[', message: /unterminated "\["/ },
  { path: ".a['x", message: /unterminated quoted field name/ },
  { path: ".a['x'", message: /expected "\]" after a quoted field name/ },
  { path: '.a[x]', message: /invalid array subscript "x"/ },
  { path: '.a[1:2:3:4]', message: /invalid array subscript/ },
  { path: '.a[::0]', message: /slice step must be positive/ },
  { path: '.a[::-1]', message: /slice step must be positive/ },
  { path: '.a b', message: /unexpected " "/ },
  { path: '.a^', message: /unexpected "\^"/ },
  { path: '.a~', message: /unexpected "~"/ },
  { path: '.a.@string()', message: /unexpected "@" where a field name should be/ },
  { path: '.a.`b', message: /unexpected "`" where a field name should be/ },
  { path: ".a['b;c']", message: /cannot be addressed/ },
  { path: ".a['#1']", message: /cannot be addressed/ },
]

for (const c of syntax) {
  t.test(`rejects the path ${JSON.stringify(c.path)}`, async (t) => {
    t.throws(() => parseObjectFieldPath(c.path), JsonPathError)
    t.throws(() => evaluateObjectField(service, c.path, 'get'), { name: 'SourceError', message: c.message })
  })
}

// Script and filter expressions must never run: each case would set the flag
// if it were evaluated. They are refused by the parser, and jsonpath-plus runs
// with evaluation off should anything get through.
t.test('script and filter expressions are never evaluated', async (t) => {
  const g = globalThis as { __renderPwned?: boolean }
  g.__renderPwned = false
  const attacks = [
    '$..[?(@.x)]',
    '.spec.ports[?(@.port>0)].name',
    '.spec.ports[(@.length-1)]',
    '.spec.ports[?(globalThis.__renderPwned=true)]',
    '.spec.ports[(globalThis.__renderPwned=true)]',
    "..[?(@.constructor.constructor('globalThis.__renderPwned=true')())]",
    '.spec.ports[?(@.name == "http")].port',
  ]
  for (const path of attacks) {
    t.throws(() => evaluateObjectField(service, path, 'get'), SourceError, path)
    t.throws(() => evaluateObjectField(list, path, 'list'), SourceError, path)
  }
  t.equal(g.__renderPwned, false)
})

t.test('filters and scripts get a message that says so', async (t) => {
  t.throws(() => parseObjectFieldPath('.a[?(@.x)]'), { message: /filter expressions \[\?\(\.\.\.\)\] are not supported/ })
  t.throws(() => parseObjectFieldPath('.a[(@.length-1)]'), { message: /script expressions \[\(\.\.\.\)\] are not supported/ })
})

t.test('the expression handed to jsonpath-plus quotes every field literally', async (t) => {
  t.equal(toJsonPathPlus(parseObjectFieldPath('.a.b')), "$['`a']['`b']")
  t.equal(toJsonPathPlus(parseObjectFieldPath('.items[*].metadata.name')), "$['`items'][$][*]['`metadata']['`name']")
  t.equal(toJsonPathPlus(parseObjectFieldPath("..['x.y']")), "$..['`x.y']")
  t.equal(toJsonPathPlus(parseObjectFieldPath('.a[-2]')), "$['`a'][-2:-1]")
  t.equal(toJsonPathPlus(parseObjectFieldPath('.a[0,-1]')), "$['`a'][0,-1:]")
  t.equal(toJsonPathPlus(parseObjectFieldPath('.a[2:0]')), undefined)
  t.equal(toJsonPathPlus(parseObjectFieldPath('.')), '$')
})
