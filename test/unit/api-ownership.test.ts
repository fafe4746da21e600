import t from 'tap'
import { ANNOTATION_INSTANCE_REF, FINALIZER_RESOURCE, LABEL_INSTANCE_UID } from '../../src/api/names.ts'
import { ownershipOf, readRenderedVersion, readTemplateRef, stampOwnership } from '../../src/api/ownership.ts'
import type { IdentifiedObject } from '../../src/api/meta.ts'

const owner = { name: 'app1', namespace: 'team-a', uid: '6f1c2e4a-0000-4000-8000-000000000001' }

const ownership = {
  labels: {
    'templates.v2.stakater.com/instance': 'app1',
    'templates.v2.stakater.com/instance-uid': '6f1c2e4a-0000-4000-8000-000000000001',
    'templates.v2.stakater.com/instance-name': 'app1',
    'templates.v2.stakater.com/instance-namespace': 'team-a',
    'templates.v2.stakater.com/sync-mode': 'strict',
  },
  annotations: { 'templates.v2.stakater.com/instance-ref': 'team-a/app1' },
}

function configMap(meta: Partial<IdentifiedObject['metadata']> = {}): IdentifiedObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'team-a', ...meta }, data: { k: 'v' } }
}

interface Case {
  readonly name: string
  readonly input: IdentifiedObject
  readonly want: IdentifiedObject['metadata']
}

const cases: Case[] = [
  {
    name: 'a bare object gets every ownership key and the finalizer',
    input: configMap(),
    want: { name: 'cfg', namespace: 'team-a', ...ownership, finalizers: [FINALIZER_RESOURCE] },
  },
  {
    name: 'user labels, annotations and finalizers are kept',
    input: configMap({ labels: { app: 'web' }, annotations: { note: 'x' }, finalizers: ['example.com/keep'] }),
    want: {
      name: 'cfg',
      namespace: 'team-a',
      labels: { app: 'web', ...ownership.labels },
      annotations: { note: 'x', ...ownership.annotations },
      finalizers: ['example.com/keep', FINALIZER_RESOURCE],
    },
  },
  {
    name: 'ownership keys written by the Template are overwritten',
    input: configMap({
      labels: { 'templates.v2.stakater.com/instance': 'someone-else', 'templates.v2.stakater.com/instance-uid': 'forged' },
      annotations: { 'templates.v2.stakater.com/instance-ref': 'other/ns' },
    }),
    want: { name: 'cfg', namespace: 'team-a', ...ownership, finalizers: [FINALIZER_RESOURCE] },
  },
  {
    name: 'the resource finalizer is not added twice and duplicates collapse',
    input: configMap({ finalizers: [FINALIZER_RESOURCE, 'example.com/a', 'example.com/a'] }),
    want: { name: 'cfg', namespace: 'team-a', ...ownership, finalizers: [FINALIZER_RESOURCE, 'example.com/a'] },
  },
]

for (const c of cases) {
  t.test(c.name, async (t) => {
    const before = structuredClone(c.input)
    const out = stampOwnership(c.input, owner, 'strict')
    t.strictSame(out.metadata, c.want)
    t.strictSame(out.data, { k: 'v' })
    t.strictSame(c.input, before, 'the input is not modified')
    t.not(out, c.input)
    t.not(out.metadata, c.input.metadata)
    t.not(out.data, c.input.data, 'nested fields are copies too')
  })
}

t.test('stamping is idempotent', async (t) => {
  const once = stampOwnership(configMap({ labels: { app: 'web' }, finalizers: ['example.com/keep'] }), owner, 'revert')
  const twice = stampOwnership(once, owner, 'revert')
  t.strictSame(twice, once)
})

t.test('the sync-mode label follows the mode', async (t) => {
  for (const mode of ['off', 'revert', 'strict'] as const) {
    t.equal(stampOwnership(configMap(), owner, mode).metadata.labels?.['templates.v2.stakater.com/sync-mode'], mode)
  }
  const restamped = stampOwnership(stampOwnership(configMap(), owner, 'strict'), owner, 'off')
  t.equal(restamped.metadata.labels?.['templates.v2.stakater.com/sync-mode'], 'off')
})

t.test('a frozen input can be stamped', async (t) => {
  const input = Object.freeze({
    ...configMap(),
    metadata: Object.freeze({ name: 'cfg', labels: Object.freeze({ a: 'b' }) }),
  }) as IdentifiedObject
  const out = stampOwnership(input, owner, 'off')
  t.equal(out.metadata.labels?.['a'], 'b')
  t.ok(Object.isFrozen(input.metadata))
})

t.test('under sync mode off the resource finalizer is left out, other finalizers stay', async (t) => {
  t.equal(stampOwnership(configMap(), owner, 'off').metadata.finalizers, undefined)
  t.strictSame(stampOwnership(configMap({ finalizers: [FINALIZER_RESOURCE, 'example.com/keep'] }), owner, 'off').metadata.finalizers, [
    'example.com/keep',
  ])
  t.strictSame(stampOwnership(configMap(), owner, 'off').metadata.labels, {
    ...ownership.labels,
    'templates.v2.stakater.com/sync-mode': 'off',
  })
})

t.test('ownershipOf: the UID label decides; without one, the adoption annotation', async (t) => {
  const labelled = (uid: string, annotation?: string): IdentifiedObject =>
    configMap({ labels: { [LABEL_INSTANCE_UID]: uid }, ...(annotation ? { annotations: { [ANNOTATION_INSTANCE_REF]: annotation } } : {}) })
  const none = { owned: false, holder: { kind: 'none' } }
  t.strictSame(ownershipOf(stampOwnership(configMap(), owner, 'revert'), owner), { owned: true }, 'stamped by us')
  t.strictSame(ownershipOf(labelled(owner.uid), owner), { owned: true }, 'the UID label alone')
  t.strictSame(
    ownershipOf(labelled('other-uid', 'team-a/app1'), owner),
    { owned: false, holder: { kind: 'instance', uid: 'other-uid' } },
    'another UID wins over our annotation',
  )
  t.strictSame(ownershipOf(labelled('', 'team-a/app1'), owner), none, 'an empty UID label is nobody to adopt from')
  t.strictSame(
    ownershipOf(configMap({ annotations: { [ANNOTATION_INSTANCE_REF]: 'team-a/app1' } }), owner),
    { owned: true, adopting: { kind: 'annotation' } },
    'adoption',
  )
  t.strictSame(ownershipOf(configMap({ annotations: { [ANNOTATION_INSTANCE_REF]: 'team-a/other' } }), owner), none, 'another ref')
  t.strictSame(ownershipOf(configMap(), owner), none, 'no ownership metadata')
  t.strictSame(ownershipOf({ apiVersion: 'v1', kind: 'ConfigMap' }, owner), none, 'no metadata at all')
})

t.test('ownershipOf: what an earlier instance of the same name left is taken over from the same Template only', async (t) => {
  const template = { namespace: 'platform', name: 'settings' }
  const earlier = { ...owner, uid: '6f1c2e4a-0000-4000-8000-0000000000ee' }
  const left = stampOwnership(configMap(), earlier, 'strict', template)
  t.strictSame(ownershipOf(left, owner, template), { owned: true, adopting: { kind: 'earlier', uid: earlier.uid } }, 'same Template')
  t.strictSame(
    ownershipOf(left, owner, { namespace: 'platform', name: 'other' }),
    { owned: false, holder: { kind: 'earlier', uid: earlier.uid, template } },
    'another Template: the earlier instance and its Template are named',
  )
  t.strictSame(
    ownershipOf(left, owner),
    { owned: false, holder: { kind: 'earlier', uid: earlier.uid, template } },
    'no Template given: never taken over',
  )
  const unrecorded = stampOwnership(configMap(), earlier, 'revert')
  t.strictSame(
    ownershipOf(unrecorded, owner, template),
    { owned: false, holder: { kind: 'earlier', uid: earlier.uid } },
    'an object that does not record its Template is not taken over',
  )
  const sibling = stampOwnership(configMap(), { ...earlier, name: 'app2' }, 'revert', template)
  t.strictSame(
    ownershipOf(sibling, owner, template),
    { owned: false, holder: { kind: 'instance', uid: earlier.uid, ref: { namespace: 'team-a', name: 'app2' } } },
    'another instance of the same Template keeps its object',
  )
  const elsewhere = stampOwnership(configMap(), { ...earlier, namespace: 'team-b' }, 'revert', template)
  t.match(ownershipOf(elsewhere, owner, template), { owned: false, holder: { kind: 'instance' } }, 'a namesake in another namespace too')
})

t.test('with the Template, the stamp records it and the rendered apiVersion, and a forged value is overwritten', async (t) => {
  const input: IdentifiedObject = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: {
      name: 'web',
      namespace: 'team-a',
      annotations: {
        'templates.v2.stakater.com/template-ref': 'team-a/mine',
        'templates.v2.stakater.com/rendered-api-version': 'autoscaling/v1',
      },
    },
  }
  const out = stampOwnership(input, owner, 'strict', { namespace: 'platform', name: 'web' })
  t.strictSame(out.metadata.annotations, {
    'templates.v2.stakater.com/instance-ref': 'team-a/app1',
    'templates.v2.stakater.com/template-ref': 'platform/web',
    'templates.v2.stakater.com/rendered-api-version': 'autoscaling/v2',
  })
  t.equal(readTemplateRef(out)?.name, 'web')
  t.equal(readRenderedVersion(out), 'autoscaling/v2')
  t.equal(readTemplateRef(configMap({ annotations: { 'templates.v2.stakater.com/template-ref': 'not a ref' } })), undefined)
})
