// comparedPart: what a memory keeps of an object compares exactly as the whole
// object does, under any ignore rules, and drops what compare never reads.

import t from 'tap'
import { compare } from '../../src/drift/compare.ts'
import { comparedPart } from '../../src/drift/compared.ts'
import { SERVER_MANAGED_METADATA, SERVER_MANAGED_TOP_LEVEL } from '../../src/drift/server-managed.ts'
import { compileIgnoreFields } from '../../src/fieldpath/compile.ts'
import { PROTECTED_PATHS } from '../../src/fieldpath/protected.ts'

const whole = () => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'shop',
    labels: { app: 'web', 'templates.v2.stakater.com/instance-uid': 'i-1' },
    annotations: { 'example.com/note': 'x' },
    finalizers: ['templates.v2.stakater.com/template-instance-resource'],
    resourceVersion: '42',
    generation: 7,
    uid: 'u-1',
    creationTimestamp: '2026-01-01T00:00:00Z',
    managedFields: [{ manager: 'template-sync', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }],
  },
  spec: { replicas: 2, template: { spec: { containers: [{ name: 'web', image: 'web:1' }] } } },
  status: { readyReplicas: 2, observedGeneration: 7 },
})

t.test('drops status and the server-managed metadata, keeps what is asked for and shares the rest', async (t) => {
  const obj = whole()
  const part = comparedPart(obj, ['generation'])
  for (const k of SERVER_MANAGED_TOP_LEVEL) t.notOk(k in part, `no ${k}`)
  for (const k of SERVER_MANAGED_METADATA) if (k !== 'generation') t.notOk(k in part.metadata, `no metadata.${k}`)
  t.equal(part.metadata.generation, 7)
  t.equal(part.spec, obj.spec, 'spec is shared, not copied')
  t.equal(part.metadata.labels, obj.metadata.labels)
  t.same(Object.keys(obj).sort(), ['apiVersion', 'kind', 'metadata', 'spec', 'status'], 'the input is left as it was')
  t.equal(obj.metadata.managedFields.length, 1)
  t.notOk('generation' in comparedPart(obj).metadata, 'nothing kept unless asked')
})

t.test('a "__proto__" key is kept as data, not taken for the prototype', async (t) => {
  const obj = JSON.parse('{"kind":"ConfigMap","metadata":{"name":"a","__proto__":{"x":1}},"data":{"k":"v"},"__proto__":{"y":2}}')
  const part = comparedPart(obj)
  t.equal(Object.getPrototypeOf(part), Object.prototype)
  t.same(Object.getOwnPropertyDescriptor(part, '__proto__')?.value, { y: 2 })
  t.same(Object.getOwnPropertyDescriptor(part.metadata, '__proto__')?.value, { x: 1 })
})

t.test('compares as the whole object does, whatever the ignore rules', async (t) => {
  const rules = [compileIgnoreFields([]), compileIgnoreFields(['metadata']), compileIgnoreFields(['metadata.labels', 'spec.replicas'])]
  const other = whole()
  other.spec.replicas = 3
  other.metadata.labels.app = 'shop'
  other.metadata.resourceVersion = '43'
  other.status.readyReplicas = 1
  for (const ignore of rules) {
    t.same(compare(comparedPart(whole()), other, ignore), compare(whole(), other, ignore))
    t.same(compare(other, comparedPart(whole()), ignore), compare(other, whole(), ignore))
    t.same(compare(comparedPart(whole()), whole(), ignore), [])
  }
})

t.test('no protect rule reopens a field comparedPart drops', async (t) => {
  // compare skips these fields only because no protect rule lies under them; a new one there must fail here.
  for (const p of PROTECTED_PATHS) {
    t.notOk(SERVER_MANAGED_TOP_LEVEL.includes(p[0] as string), `${p.join('.')} is not under a dropped top-level field`)
    t.notOk(p[0] === 'metadata' && SERVER_MANAGED_METADATA.includes(p[1] as string), `${p.join('.')} is not under dropped metadata`)
  }
})
