import t from 'tap'
import { normalize } from '../../src/drift/normalize.ts'

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v)
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k])
  }
  return v
}

const live = () => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'settings',
    namespace: 'shop',
    labels: { app: 'shop' },
    annotations: { 'example.com/owner': 'team-a' },
    resourceVersion: '42',
    managedFields: [{ manager: 'kubectl', operation: 'Update' }],
    generation: 3,
    uid: '6f1c',
    creationTimestamp: '2025-01-01T00:00:00Z',
    selfLink: '/api/v1/namespaces/shop/configmaps/settings',
    deletionTimestamp: '2025-01-02T00:00:00Z',
    deletionGracePeriodSeconds: 30,
  },
  data: { key: 'value' },
  spec: { template: { metadata: { creationTimestamp: null } }, status: 'nested, kept' },
  status: { phase: 'Ready' },
})

t.test('drops the server-managed fields and keeps the rest', async (t) => {
  t.strictSame(normalize(live()), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings', namespace: 'shop', labels: { app: 'shop' }, annotations: { 'example.com/owner': 'team-a' } },
    data: { key: 'value' },
    spec: { template: { metadata: { creationTimestamp: null } }, status: 'nested, kept' },
  })
})

t.test('never modifies a frozen input and shares nothing with it', async (t) => {
  const input = deepFreeze(live())
  const snapshot = JSON.stringify(input)
  const out = normalize(input) as ReturnType<typeof live>
  t.equal(JSON.stringify(input), snapshot)
  t.notOk(Object.isFrozen(out), 'the copy is writable')
  out.metadata.labels.app = 'changed'
  out.spec.template.metadata.creationTimestamp = 'x' as unknown as null
  t.equal(input.metadata.labels.app, 'shop')
  t.equal(input.spec.template.metadata.creationTimestamp, null)
})

t.test('an object without metadata or status is copied whole', async (t) => {
  const input = deepFreeze({ a: [1, { b: 2 }], c: null })
  const out = normalize(input)
  t.strictSame(out, input)
  t.not(out, input)
  t.not(out.a, input.a)
})

t.test('metadata that is not a map is kept as is', async (t) => {
  t.strictSame(normalize({ metadata: null, status: 1 }), { metadata: null })
  t.strictSame(normalize({ metadata: ['resourceVersion'] }), { metadata: ['resourceVersion'] })
})

t.test('values that are not objects pass through', async (t) => {
  t.equal(normalize(5), 5)
  t.equal(normalize(null), null)
  t.equal(normalize('status'), 'status')
  const arr = deepFreeze([{ status: 1 }])
  t.strictSame(normalize(arr), [{ status: 1 }], 'status is only dropped at the top of an object')
})

t.test('a "__proto__" key stays data and never becomes a prototype', async (t) => {
  const input = deepFreeze(JSON.parse('{"metadata":{"__proto__":{"polluted":true},"uid":"x"},"__proto__":{"y":1}}') as unknown)
  const out = normalize(input) as Record<string, Record<string, unknown>>
  t.equal(Object.getPrototypeOf(out), Object.prototype)
  t.ok(Object.hasOwn(out, '__proto__'))
  t.ok(Object.hasOwn(out['metadata'] as object, '__proto__'))
  t.notOk(Object.hasOwn(out['metadata'] as object, 'uid'))
  t.equal(({} as Record<string, unknown>)['polluted'], undefined)
})
