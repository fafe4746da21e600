import t from 'tap'
import {
  ANNOTATION_INSTANCE_REF,
  LABEL_INSTANCE,
  LABEL_INSTANCE_NAME,
  LABEL_INSTANCE_NAMESPACE,
  LABEL_INSTANCE_UID,
} from '../../src/api/names.ts'
import { compare } from '../../src/drift/compare.ts'
import type { Change } from '../../src/drift/types.ts'
import { compileIgnoreFields } from '../../src/fieldpath/compile.ts'

type Json = Record<string, any>

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v)
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k])
  }
  return v
}

const esc = (k: string) => k.replaceAll('~', '~0').replaceAll('/', '~1')

function deployment(): Json {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'shop',
      resourceVersion: '10',
      generation: 2,
      uid: 'u-1',
      creationTimestamp: '2025-01-01T00:00:00Z',
      managedFields: [{ manager: 'template-sync', operation: 'Apply', time: '2025-01-01T00:00:00Z' }],
      labels: {
        app: 'web',
        [LABEL_INSTANCE]: 'web',
        [LABEL_INSTANCE_UID]: 'i-1',
        [LABEL_INSTANCE_NAME]: 'web',
        [LABEL_INSTANCE_NAMESPACE]: 'shop',
      },
      annotations: { [ANNOTATION_INSTANCE_REF]: 'shop/web', 'example.com/owner': 'team-a', 'a~b': 'tilde' },
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { creationTimestamp: null, labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'app',
              image: 'app:1',
              env: [
                { name: 'A', value: '1' },
                { name: 'B', value: '2' },
              ],
            },
            { name: 'proxy', image: 'proxy:1', env: [{ name: 'C', value: '3' }] },
          ],
        },
      },
      matrix: [
        [1, 2],
        [3, 4],
      ],
    },
    status: { replicas: 2, conditions: [{ type: 'Available', status: 'True' }] },
  }
}

type Want = [Change['kind'], string, string]

interface Case {
  readonly name: string
  readonly ignore?: string[]
  readonly edit: (o: Json) => void
  readonly want: Want[]
  /** Replaces the Deployment as the starting point. */
  readonly base?: () => unknown
}

const L = (k: string) => `/metadata/labels/${esc(k)}`
const Lp = (k: string) => `metadata.labels['${k}']`

const cases: Case[] = [
  { name: 'identical content reports nothing', edit: () => {}, want: [] },
  {
    name: 'a changed scalar is reported at its path',
    edit: (o) => {
      o.spec.replicas = 3
    },
    want: [['changed', '/spec/replicas', 'spec.replicas']],
  },
  {
    name: 'an ignored scalar is not reported',
    ignore: ['spec.replicas'],
    edit: (o) => {
      o.spec.replicas = 3
    },
    want: [],
  },
  {
    name: 'an added key',
    edit: (o) => {
      o.spec.paused = true
    },
    want: [['added', '/spec/paused', 'spec.paused']],
  },
  {
    name: 'a removed key',
    edit: (o) => {
      delete o.spec.replicas
    },
    want: [['removed', '/spec/replicas', 'spec.replicas']],
  },
  {
    name: 'an added map is one change',
    edit: (o) => {
      o.spec.strategy = { type: 'Recreate', x: { y: 1 } }
    },
    want: [['added', '/spec/strategy', 'spec.strategy']],
  },
  {
    name: 'a removed map is one change',
    edit: (o) => {
      delete o.spec.selector
    },
    want: [['removed', '/spec/selector', 'spec.selector']],
  },
  {
    name: 'a removed array is one change',
    edit: (o) => {
      delete o.spec.template.spec.containers
    },
    want: [['removed', '/spec/template/spec/containers', 'spec.template.spec.containers']],
  },
  {
    name: 'an added array is one change',
    edit: (o) => {
      o.spec.template.spec.initContainers = [{ name: 'i' }]
    },
    want: [['added', '/spec/template/spec/initContainers', 'spec.template.spec.initContainers']],
  },
  {
    name: 'null replacing a value is a change',
    edit: (o) => {
      o.spec.replicas = null
    },
    want: [['changed', '/spec/replicas', 'spec.replicas']],
  },
  {
    name: 'null replacing a map is a change',
    edit: (o) => {
      o.spec.selector = null
    },
    want: [['changed', '/spec/selector', 'spec.selector']],
  },
  {
    name: 'null versus absent: null added',
    edit: (o) => {
      o.spec.paused = null
    },
    want: [['added', '/spec/paused', 'spec.paused']],
  },
  {
    name: 'null versus absent: null removed',
    base: () => ({ spec: { paused: null } }),
    edit: (o) => {
      delete o.spec.paused
    },
    want: [['removed', '/spec/paused', 'spec.paused']],
  },
  {
    name: 'numbers compare by value',
    base: () => ({ a: 1, b: 0 }),
    edit: (o) => {
      o.a = 1.0
      o.b = -0
    },
    want: [],
  },
  {
    name: 'a number and its string are different',
    edit: (o) => {
      o.spec.replicas = '2'
    },
    want: [['changed', '/spec/replicas', 'spec.replicas']],
  },
  {
    name: 'a boolean and its string are different',
    base: () => ({ a: true }),
    edit: (o) => {
      o.a = 'true'
    },
    want: [['changed', '/a', 'a']],
  },
  {
    name: 'a map becoming an array is a change',
    edit: (o) => {
      o.spec.selector = []
    },
    want: [['changed', '/spec/selector', 'spec.selector']],
  },
  {
    name: 'an array becoming a map is a change',
    edit: (o) => {
      o.spec.matrix = {}
    },
    want: [['changed', '/spec/matrix', 'spec.matrix']],
  },
  {
    name: 'a map becoming a string is a change',
    edit: (o) => {
      o.spec.selector = 'app=web'
    },
    want: [['changed', '/spec/selector', 'spec.selector']],
  },
  {
    name: 'an empty map and an empty array differ',
    base: () => ({ a: {} }),
    edit: (o) => {
      o.a = []
    },
    want: [['changed', '/a', 'a']],
  },
  {
    name: 'an element change is reported at the element field',
    edit: (o) => {
      o.spec.template.spec.containers[1].image = 'proxy:2'
    },
    want: [['changed', '/spec/template/spec/containers/1/image', 'spec.template.spec.containers[1].image']],
  },
  {
    name: 'an appended element changes the array length',
    edit: (o) => {
      o.spec.template.spec.containers.push({ name: 'x' })
    },
    want: [['changed', '/spec/template/spec/containers', 'spec.template.spec.containers']],
  },
  {
    name: 'a removed element changes the array length',
    edit: (o) => {
      o.spec.template.spec.containers.pop()
    },
    want: [['changed', '/spec/template/spec/containers', 'spec.template.spec.containers']],
  },
  {
    name: 'a length change counts even when element fields are ignored',
    ignore: ['spec.template.spec.containers[*].env'],
    edit: (o) => {
      o.spec.template.spec.containers.push({ name: 'x' })
    },
    want: [['changed', '/spec/template/spec/containers', 'spec.template.spec.containers']],
  },
  {
    name: 'a length change counts even when every element is ignored',
    ignore: ['spec.template.spec.containers[*]'],
    edit: (o) => {
      o.spec.template.spec.containers.pop()
    },
    want: [['changed', '/spec/template/spec/containers', 'spec.template.spec.containers']],
  },
  {
    name: 'a length change is ignored with the array',
    ignore: ['spec.template.spec.containers'],
    edit: (o) => {
      o.spec.template.spec.containers.pop()
    },
    want: [],
  },
  {
    name: 'an env length change under [*].env is ignored',
    ignore: ['spec.template.spec.containers[*].env'],
    edit: (o) => {
      o.spec.template.spec.containers[0].env.push({ name: 'D', value: '4' })
      o.spec.template.spec.containers[1].env[0].value = 'x'
    },
    want: [],
  },
  {
    name: '[*] ignores element changes but not the fields beside it',
    ignore: ['spec.template.spec.containers[*].env'],
    edit: (o) => {
      o.spec.template.spec.containers[0].env[0].value = 'x'
      o.spec.template.spec.containers[0].image = 'app:2'
    },
    want: [['changed', '/spec/template/spec/containers/0/image', 'spec.template.spec.containers[0].image']],
  },
  {
    name: '[0] covers only index 0',
    ignore: ['spec.template.spec.containers[0]'],
    edit: (o) => {
      o.spec.template.spec.containers[0].image = 'app:2'
      o.spec.template.spec.containers[1].image = 'proxy:2'
    },
    want: [['changed', '/spec/template/spec/containers/1/image', 'spec.template.spec.containers[1].image']],
  },
  {
    name: '[1].image covers that one field',
    ignore: ['spec.template.spec.containers[1].image'],
    edit: (o) => {
      o.spec.template.spec.containers[1].image = 'proxy:2'
      o.spec.template.spec.containers[1].name = 'p'
    },
    want: [['changed', '/spec/template/spec/containers/1/name', 'spec.template.spec.containers[1].name']],
  },
  {
    name: 'nested arrays report the inner element',
    edit: (o) => {
      o.spec.matrix[1][0] = 9
    },
    want: [['changed', '/spec/matrix/1/0', 'spec.matrix[1][0]']],
  },
  {
    name: 'nested wildcards ignore one column',
    ignore: ['spec.matrix[*][0]'],
    edit: (o) => {
      o.spec.matrix[0][0] = 8
      o.spec.matrix[1][0] = 9
      o.spec.matrix[1][1] = 7
    },
    want: [['changed', '/spec/matrix/1/1', 'spec.matrix[1][1]']],
  },
  {
    name: 'an inner length change is reported at the inner array',
    ignore: ['spec.matrix[0]'],
    edit: (o) => {
      o.spec.matrix[0].push(5)
      o.spec.matrix[1].push(5)
    },
    want: [['changed', '/spec/matrix/1', 'spec.matrix[1]']],
  },
  {
    name: 'a key with dots and a slash',
    edit: (o) => {
      o.metadata.annotations['example.com/owner'] = 'team-b'
    },
    want: [['changed', '/metadata/annotations/example.com~1owner', "metadata.annotations['example.com/owner']"]],
  },
  {
    name: 'a key with "~"',
    edit: (o) => {
      o.metadata.annotations['a~b'] = 'x'
    },
    want: [['changed', '/metadata/annotations/a~0b', "metadata.annotations['a~b']"]],
  },
  {
    name: 'a quoted ignore entry covers exactly that key',
    ignore: ["metadata.annotations['example.com/owner']"],
    edit: (o) => {
      o.metadata.annotations['example.com/owner'] = 'team-b'
      o.metadata.annotations['example.com/other'] = 'y'
    },
    want: [['added', '/metadata/annotations/example.com~1other', "metadata.annotations['example.com/other']"]],
  },
  {
    name: 'a double-quoted ignore entry works the same',
    ignore: ['metadata.annotations["a~b"]'],
    edit: (o) => {
      o.metadata.annotations['a~b'] = 'x'
    },
    want: [],
  },
  {
    name: 'ignoring a parent covers a deep change',
    ignore: ['spec.template'],
    edit: (o) => {
      o.spec.template.spec.containers[0].env[1].value = 'x'
    },
    want: [],
  },
  {
    name: 'ignoring a parent covers its removal',
    ignore: ['spec.template'],
    edit: (o) => {
      delete o.spec.template
    },
    want: [],
  },
  {
    name: 'ignoring a child does not cover the parent’s removal',
    ignore: ['spec.replicas'],
    edit: (o) => {
      delete o.spec
    },
    want: [['removed', '/spec', 'spec']],
  },
  {
    name: 'ignoring a child does not cover the parent turning null',
    ignore: ['spec.selector.matchLabels'],
    edit: (o) => {
      o.spec.selector = null
    },
    want: [['changed', '/spec/selector', 'spec.selector']],
  },
  {
    name: 'ignoring a child does not cover a sibling',
    ignore: ['spec.template.spec.containers[0].image'],
    edit: (o) => {
      o.spec.template.spec.containers[0].name = 'b'
    },
    want: [['changed', '/spec/template/spec/containers/0/name', 'spec.template.spec.containers[0].name']],
  },
  {
    name: 'server-managed metadata and status are never drift',
    edit: (o) => {
      Object.assign(o.metadata, {
        resourceVersion: '11',
        generation: 3,
        uid: 'u-2',
        creationTimestamp: 'now',
        selfLink: '/x',
        deletionTimestamp: 'now',
        deletionGracePeriodSeconds: 0,
      })
      o.metadata.managedFields.push({ manager: 'kubectl' })
      o.status = { replicas: 3 }
    },
    want: [],
  },
  {
    name: 'removing status is not drift',
    edit: (o) => {
      delete o.status
    },
    want: [],
  },
  {
    name: 'creationTimestamp inside a pod template is compared',
    edit: (o) => {
      o.spec.template.metadata.creationTimestamp = '2025'
    },
    want: [['changed', '/spec/template/metadata/creationTimestamp', 'spec.template.metadata.creationTimestamp']],
  },
  {
    name: 'a status field below spec is compared',
    edit: (o) => {
      o.spec.status = 'x'
    },
    want: [['added', '/spec/status', 'spec.status']],
  },
  {
    name: 'metadata.name is compared',
    edit: (o) => {
      o.metadata.name = 'other'
    },
    want: [['changed', '/metadata/name', 'metadata.name']],
  },
  {
    name: 'an ignored labels map lets other labels change',
    ignore: ['metadata.labels'],
    edit: (o) => {
      o.metadata.labels.app = 'x'
      o.metadata.labels.team = 'y'
    },
    want: [],
  },
  {
    name: 'an ignored labels map still protects a removed ownership label',
    ignore: ['metadata.labels'],
    edit: (o) => {
      delete o.metadata.labels[LABEL_INSTANCE]
    },
    want: [['removed', L(LABEL_INSTANCE), Lp(LABEL_INSTANCE)]],
  },
  {
    name: 'an ignored labels map still protects a changed ownership label',
    ignore: ['metadata.labels'],
    edit: (o) => {
      o.metadata.labels[LABEL_INSTANCE_UID] = 'i-2'
    },
    want: [['changed', L(LABEL_INSTANCE_UID), Lp(LABEL_INSTANCE_UID)]],
  },
  {
    name: 'removing an ignored labels map reports each ownership label, in order',
    ignore: ['metadata.labels'],
    edit: (o) => {
      delete o.metadata.labels
    },
    want: [LABEL_INSTANCE, LABEL_INSTANCE_UID, LABEL_INSTANCE_NAME, LABEL_INSTANCE_NAMESPACE].map((k): Want => ['removed', L(k), Lp(k)]),
  },
  {
    name: 'a nulled ignored labels map reports each ownership label',
    ignore: ['metadata.labels'],
    edit: (o) => {
      o.metadata.labels = null
    },
    want: [LABEL_INSTANCE, LABEL_INSTANCE_UID, LABEL_INSTANCE_NAME, LABEL_INSTANCE_NAMESPACE].map((k): Want => ['removed', L(k), Lp(k)]),
  },
  {
    name: 'ignoring all of metadata still protects ownership',
    ignore: ['metadata'],
    edit: (o) => {
      o.metadata.name = 'x'
      delete o.metadata.labels[LABEL_INSTANCE_NAME]
      delete o.metadata.annotations[ANNOTATION_INSTANCE_REF]
    },
    want: [
      ['removed', L(LABEL_INSTANCE_NAME), Lp(LABEL_INSTANCE_NAME)],
      ['removed', `/metadata/annotations/${esc(ANNOTATION_INSTANCE_REF)}`, `metadata.annotations['${ANNOTATION_INSTANCE_REF}']`],
    ],
  },
  {
    name: 'removing an ignored metadata reports every ownership key',
    ignore: ['metadata'],
    edit: (o) => {
      delete o.metadata
    },
    want: [
      ...[LABEL_INSTANCE, LABEL_INSTANCE_UID, LABEL_INSTANCE_NAME, LABEL_INSTANCE_NAMESPACE].map((k): Want => ['removed', L(k), Lp(k)]),
      ['removed', `/metadata/annotations/${esc(ANNOTATION_INSTANCE_REF)}`, `metadata.annotations['${ANNOTATION_INSTANCE_REF}']`],
    ],
  },
  {
    name: 'an ignored annotations map protects instance-ref',
    ignore: ['metadata.annotations'],
    edit: (o) => {
      o.metadata.annotations[ANNOTATION_INSTANCE_REF] = 'other/web'
      o.metadata.annotations['example.com/owner'] = 'b'
    },
    want: [['changed', `/metadata/annotations/${esc(ANNOTATION_INSTANCE_REF)}`, `metadata.annotations['${ANNOTATION_INSTANCE_REF}']`]],
  },
  {
    name: 'an ignore entry naming a protected key has no effect on it',
    ignore: [`metadata.labels['${LABEL_INSTANCE}']`],
    edit: (o) => {
      o.metadata.labels[LABEL_INSTANCE] = 'other'
    },
    want: [['changed', L(LABEL_INSTANCE), Lp(LABEL_INSTANCE)]],
  },
  {
    name: 'an ownership label added under an ignored labels map',
    ignore: ['metadata.labels'],
    base: () => ({ metadata: { name: 'x' } }),
    edit: (o) => {
      o.metadata.labels = { team: 'a', [LABEL_INSTANCE]: 'web' }
    },
    want: [['added', L(LABEL_INSTANCE), Lp(LABEL_INSTANCE)]],
  },
  {
    name: 'an ignored labels map turning into a list reports the ownership labels',
    ignore: ['metadata.labels'],
    base: () => ({ metadata: { labels: { [LABEL_INSTANCE]: 'web', team: 'a' } } }),
    edit: (o) => {
      o.metadata.labels = [LABEL_INSTANCE]
    },
    want: [['removed', L(LABEL_INSTANCE), Lp(LABEL_INSTANCE)]],
  },
  {
    name: 'without ignores a removed labels map is one change',
    edit: (o) => {
      delete o.metadata.labels
    },
    want: [['removed', '/metadata/labels', 'metadata.labels']],
  },
  {
    name: 'without ignores a removed ownership label is reported at the label',
    edit: (o) => {
      delete o.metadata.labels[LABEL_INSTANCE]
    },
    want: [['removed', L(LABEL_INSTANCE), Lp(LABEL_INSTANCE)]],
  },
  {
    name: 'ownership labels are protected only in the object’s own metadata',
    ignore: ['spec.template.metadata.labels'],
    edit: (o) => {
      o.spec.template.metadata.labels[LABEL_INSTANCE] = 'x'
    },
    want: [],
  },
  {
    name: 'changes come in document order, added keys after the rest',
    edit: (o) => {
      o.zzz = 1
      o.apiVersion = 'apps/v2'
      o.spec.replicas = 5
      o.metadata.name = 'n'
      o.aaa = 2
    },
    want: [
      ['changed', '/apiVersion', 'apiVersion'],
      ['changed', '/metadata/name', 'metadata.name'],
      ['changed', '/spec/replicas', 'spec.replicas'],
      ['added', '/zzz', 'zzz'],
      ['added', '/aaa', 'aaa'],
    ],
  },
  {
    name: 'inherited members are not keys',
    base: () => ({ constructor: 1, a: {} }),
    edit: (o) => {
      Reflect.deleteProperty(o, 'constructor')
      o.a.toString = 'x'
    },
    want: [
      ['removed', '/constructor', 'constructor'],
      ['added', '/a/toString', 'a.toString'],
    ],
  },
  {
    name: 'a "__proto__" key is compared as data',
    base: () => JSON.parse('{"a":{"__proto__":{"x":1}}}'),
    edit: (o) => {
      o.a = JSON.parse('{"__proto__":{"x":2}}')
    },
    want: [['changed', '/a/__proto__/x', 'a.__proto__.x']],
  },
  {
    name: 'an undefined property counts as absent',
    base: () => ({ a: 1, b: undefined }),
    edit: (o) => {
      o.a = undefined
      o.c = undefined
    },
    want: [['removed', '/a', 'a']],
  },
]

for (const c of cases) {
  t.test(c.name, async (t) => {
    const make = c.base ?? deployment
    const after = make() as Json
    c.edit(after)
    const before = deepFreeze(make())
    deepFreeze(after)
    const snapshots = [JSON.stringify(before), JSON.stringify(after)]
    const ignore = compileIgnoreFields(c.ignore ?? [])
    const got = compare(before, after, ignore)
    t.strictSame(
      got.map((ch) => [ch.kind, ch.pointer, ch.path]),
      c.want,
    )
    t.strictSame([JSON.stringify(before), JSON.stringify(after)], snapshots, 'inputs are left as they were')
    t.strictSame(compare(before, after, ignore), got, 'a compiled ignore gives the same answer when reused')
  })
}

t.test('comparing an object with itself reports nothing', async (t) => {
  const d = deepFreeze(deployment())
  t.strictSame(compare(d, d, compileIgnoreFields([])), [])
})

t.test('values that are not objects are compared at the root', async (t) => {
  const none = compileIgnoreFields([])
  t.strictSame(compare(1, 2, none), [{ pointer: '', path: '', kind: 'changed' }])
  t.strictSame(compare(undefined, {}, none), [{ pointer: '', path: '', kind: 'added' }])
  t.strictSame(compare([1], [1, 2], none), [{ pointer: '', path: '', kind: 'changed' }])
  t.strictSame(compare([{ a: 1 }], [{ a: 2 }], none), [{ pointer: '/0/a', path: '[0].a', kind: 'changed' }])
  t.strictSame(compare(NaN, NaN, none), [])
  t.strictSame(compare('x', 'x', none), [])
})

t.test('a change is a plain record of pointer, path and kind', async (t) => {
  const [change] = compare({ spec: { replicas: 1 } }, { spec: { replicas: 2 } }, compileIgnoreFields([]))
  t.strictSame(Object.keys(change ?? {}).sort(), ['kind', 'path', 'pointer'])
})

t.test('maxChanges stops the walk at the first changes in document order', async (t) => {
  const none = compileIgnoreFields([])
  const before = { spec: { a: 1, b: 2, c: { d: 3, e: 4 } }, data: { x: '1' } }
  const after = { spec: { a: 9, b: 9, c: { d: 9, e: 9 } }, data: { x: '9' } }
  const all = compare(before, after, none)
  t.strictSame(
    all.map((c) => c.path),
    ['spec.a', 'spec.b', 'spec.c.d', 'spec.c.e', 'data.x'],
  )
  for (const max of [1, 2, 3, 5, 6]) {
    t.strictSame(compare(before, after, none, { maxChanges: max }), all.slice(0, max), `maxChanges ${max}`)
  }
  t.strictSame(compare(before, before, none, { maxChanges: 1 }), [], 'nothing changed: nothing reported')
  t.throws(() => compare(before, after, none, { maxChanges: 0 }), RangeError, 'a limit below 1 is a caller bug')
})

t.test('maxChanges bounds the cost of two large objects that differ everywhere', async (t) => {
  const none = compileIgnoreFields([])
  const n = 400_000
  const before = { spec: { values: Array.from({ length: n }, (_, i) => i) } }
  const after = { spec: { values: Array.from({ length: n }, (_, i) => i + 1) } }
  const started = performance.now()
  const got = compare(before, after, none, { maxChanges: 21 })
  const limitedMs = performance.now() - started
  t.equal(got.length, 21)
  t.strictSame(got[20], { pointer: '/spec/values/20', path: 'spec.values[20]', kind: 'changed' })
  // Not a timing test: the unlimited walk records every element, the limited one 21.
  t.equal(compare(before, after, none).length, n, 'without a limit every difference is reported')
  t.comment(`limited walk: ${limitedMs.toFixed(2)} ms`)
})

t.test('integers beyond 2^53 compare by value when they arrive as BigInt', async (t) => {
  const none = compileIgnoreFields([])
  const seconds = (v: bigint) => ({ spec: { template: { spec: { terminationGracePeriodSeconds: v } } } })
  t.strictSame(compare(seconds(9007199254740993n), seconds(9007199254740993n), none), [], 'equal values: no change')
  t.strictSame(
    compare(seconds(9007199254740993n), seconds(9007199254740992n), none).map((c) => c.path),
    ['spec.template.spec.terminationGracePeriodSeconds'],
    'a difference of one beyond 2^53 is a change',
  )
  t.strictSame(
    compare(seconds(9223372036854775807n), seconds(9223372036854775296n), none).map((c) => c.path),
    ['spec.template.spec.terminationGracePeriodSeconds'],
    'near 2^63 too',
  )
  t.strictSame(compare({ a: 1n }, { a: 1 }, none).length, 1, 'a BigInt and a number are different values')
})
