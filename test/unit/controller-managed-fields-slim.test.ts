// What the caches keep of managedFields: who wrote and when everywhere; in the
// drift caches also our Apply entry's field set, one frozen object per distinct set.

import t from 'tap'
import type { KubeObject } from '../../src/api/meta.ts'
import { driftCacheTransform, FieldSetInterner, slimManagedFields } from '../../src/controller/managed-fields-slim.ts'
import { DEFAULT_COMPONENTS } from '../../src/api/writers.ts'

const fields = () => ({ 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } })

function object(name: string, set: Record<string, unknown> = fields(), otherManager = 'kube-controller-manager'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: 'ns',
      managedFields: [
        { manager: 'template-sync', operation: 'Apply', apiVersion: 'v1', time: 't1', fieldsType: 'FieldsV1', fieldsV1: set },
        { manager: 'template-sync', operation: 'Apply', apiVersion: 'v1', time: 't1', subresource: 'status', fieldsV1: { 'f:status': {} } },
        { manager: 'template-sync', operation: 'Update', apiVersion: 'v1', time: 't0', fieldsV1: { 'f:metadata': {} } },
        {
          manager: otherManager,
          operation: 'Update',
          apiVersion: 'v1',
          time: 't2',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': { 'f:b': {} } },
        },
      ],
    },
    data: { a: '1', b: '2' },
  } as KubeObject
}

t.test('slimManagedFields keeps who wrote and when, no field set', async (t) => {
  const slim = slimManagedFields<KubeObject>(object('a'))
  t.same(slim.metadata?.managedFields, [
    { manager: 'template-sync', operation: 'Apply', time: 't1' },
    { manager: 'template-sync', operation: 'Apply', time: 't1', subresource: 'status' },
    { manager: 'template-sync', operation: 'Update', time: 't0' },
    { manager: 'kube-controller-manager', operation: 'Update', time: 't2' },
  ])
  const bare = { metadata: { name: 'x' } } as KubeObject
  t.equal(slimManagedFields(bare), bare, 'nothing to slim')
})

t.test('the drift transform keeps only our Apply entry`s field set, interned and frozen', async (t) => {
  const interner = new FieldSetInterner()
  const transform = driftCacheTransform(interner, DEFAULT_COMPONENTS)
  const a = transform<KubeObject>(object('a'))
  const b = transform<KubeObject>(object('b'))
  const [ours, status, update, other] = a.metadata?.managedFields ?? []
  t.same(ours, { manager: 'template-sync', operation: 'Apply', time: 't1', apiVersion: 'v1', fieldsV1: fields() })
  t.same(status, { manager: 'template-sync', operation: 'Apply', time: 't1', subresource: 'status' }, 'not a subresource entry')
  t.same(update, { manager: 'template-sync', operation: 'Update', time: 't0' }, 'not our Update entry')
  t.same(other, { manager: 'kube-controller-manager', operation: 'Update', time: 't2' }, 'not a component`s')
  t.equal(b.metadata?.managedFields?.[0]?.fieldsV1, ours?.fieldsV1, 'one object for identical sets')
  const kept = (ours?.fieldsV1 ?? {}) as Record<string, object>
  t.ok(Object.isFrozen(kept) && Object.isFrozen(kept['f:data']), 'deep-frozen')
  const c = transform<KubeObject>(object('c', { 'f:data': { '.': {}, 'f:other': {} } }))
  t.not(c.metadata?.managedFields?.[0]?.fieldsV1, ours?.fieldsV1)
  t.equal(interner.size, 2)
})

t.test('while another writer owns fields, every entry of the main resource keeps its set', async (t) => {
  const transform = driftCacheTransform(new FieldSetInterner(), DEFAULT_COMPONENTS)
  const [ours, status, update, other] = transform<KubeObject>(object('a', fields(), 'kubectl-edit')).metadata?.managedFields ?? []
  t.same(ours?.fieldsV1, fields())
  t.equal(status?.fieldsV1, undefined, 'a status entry owns nothing that is drift')
  t.same(update?.fieldsV1, { 'f:metadata': {} })
  t.same(other?.fieldsV1, { 'f:data': { 'f:b': {} } }, 'the writer whose additions are looked for')
})

t.test('past its bound the interner keeps no more sets; each object keeps its own', async (t) => {
  const interner = new FieldSetInterner(1)
  const first = interner.intern(fields())
  t.equal(interner.intern(fields()), first)
  const extra = { 'f:data': { 'f:z': {} } }
  const kept = interner.intern(extra)
  t.same(kept, extra)
  t.not(interner.intern({ 'f:data': { 'f:z': {} } }), kept, 'not remembered')
  t.equal(interner.size, 1)
})
