import t from 'tap'
import {
  collectionKey,
  describeObject,
  gvkString,
  IdentityError,
  namespacedKey,
  objectKey,
  parseApiVersion,
  parseCollectionKey,
  parseGvkString,
  parseNamespacedKey,
  parseObjectKey,
  refOf,
} from '../../src/api/identity.ts'
import type { ObjectRef } from '../../src/api/meta.ts'

const gvks: Array<[apiVersion: string, kind: string, want: string, group: string, version: string]> = [
  ['v1', 'ConfigMap', '/v1/ConfigMap', '', 'v1'],
  ['apps/v1', 'Deployment', 'apps/v1/Deployment', 'apps', 'v1'],
  ['rbac.authorization.k8s.io/v1', 'ClusterRole', 'rbac.authorization.k8s.io/v1/ClusterRole', 'rbac.authorization.k8s.io', 'v1'],
  [
    'templates.v2.stakater.com/v2alpha1',
    'TemplateInstance',
    'templates.v2.stakater.com/v2alpha1/TemplateInstance',
    'templates.v2.stakater.com',
    'v2alpha1',
  ],
]

for (const [apiVersion, kind, want, group, version] of gvks) {
  t.test(`gvkString ${apiVersion} ${kind}`, async (t) => {
    t.equal(gvkString(apiVersion, kind), want)
    t.strictSame(parseGvkString(want), { group, version, kind, apiVersion })
    t.strictSame(parseApiVersion(apiVersion), { group, version })
  })
}

const refs: Array<[ref: ObjectRef, key: string]> = [
  [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', name: 'cfg' }, '/v1/ConfigMap/team-a/cfg'],
  [{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'team-a', name: 'web' }, 'apps/v1/Deployment/team-a/web'],
  [{ apiVersion: 'v1', kind: 'Namespace', name: 'team-a' }, '/v1/Namespace//team-a'],
  [
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'system:reader' },
    'rbac.authorization.k8s.io/v1/ClusterRole//system:reader',
  ],
]

for (const [ref, key] of refs) {
  t.test(`objectKey ${key}`, async (t) => {
    t.equal(objectKey(ref), key)
    t.strictSame(parseObjectKey(key), ref)
  })
}

t.test('an empty namespace is the same object as none', async (t) => {
  t.equal(objectKey({ apiVersion: 'v1', kind: 'Namespace', namespace: '', name: 'x' }), '/v1/Namespace//x')
})

t.test('keys of different objects differ', async (t) => {
  const keys = new Set([
    objectKey({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: 'b' }),
    objectKey({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'b', name: 'a' }),
    objectKey({ apiVersion: 'v1', kind: 'Secret', namespace: 'a', name: 'b' }),
    objectKey({ apiVersion: 'v2', kind: 'ConfigMap', namespace: 'a', name: 'b' }),
    objectKey({ apiVersion: 'x/v1', kind: 'ConfigMap', namespace: 'a', name: 'b' }),
    objectKey({ apiVersion: 'v1', kind: 'ConfigMap', name: 'b' }),
  ])
  t.equal(keys.size, 6)
})

const bad: Array<[what: string, fn: () => unknown]> = [
  ['an empty apiVersion', () => gvkString('', 'X')],
  ['an apiVersion with two slashes', () => gvkString('a/b/c', 'X')],
  ['an apiVersion with an empty group', () => gvkString('/v1', 'X')],
  ['an empty kind', () => gvkString('v1', '')],
  ['a kind with a slash', () => gvkString('v1', 'A/B')],
  ['a gvk string with two parts', () => parseGvkString('v1/ConfigMap')],
  ['a gvk string without a kind', () => parseGvkString('apps/v1/')],
  ['a name with a slash', () => objectKey({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a/b' })],
  ['an empty name', () => objectKey({ apiVersion: 'v1', kind: 'ConfigMap', name: '' })],
  ['a namespace with a slash', () => objectKey({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a/b', name: 'c' })],
  ['a key with too few parts', () => parseObjectKey('/v1/ConfigMap/x')],
  ['a key without a name', () => parseObjectKey('/v1/ConfigMap/ns/')],
  ['a key with too many parts', () => parseObjectKey('/v1/ConfigMap/ns/a/b')],
  ['a collection key with too few parts', () => parseCollectionKey('/v1/ConfigMap')],
  ['a collection key with a namespace with a slash', () => collectionKey('v1', 'ConfigMap', 'a/b')],
  ['a collection key with an invalid apiVersion', () => collectionKey('a/b/c', 'ConfigMap')],
]

for (const [what, fn] of bad) {
  t.test(`rejects ${what}`, async (t) => {
    t.throws(fn, IdentityError)
  })
}

t.test('a collection key is the object key without the name', async (t) => {
  t.equal(collectionKey('v1', 'ConfigMap', 'team-a'), '/v1/ConfigMap/team-a')
  t.equal(collectionKey('apps/v1', 'Deployment'), 'apps/v1/Deployment/', 'every namespace')
  t.strictSame(parseCollectionKey('/v1/ConfigMap/team-a'), { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a' })
  t.strictSame(parseCollectionKey('apps/v1/Deployment/'), { apiVersion: 'apps/v1', kind: 'Deployment' })
  const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'team-a', name: 'web' }
  t.equal(objectKey(ref), `${collectionKey(ref.apiVersion, ref.kind, ref.namespace)}/web`)
})

t.test('namespaced keys: namespace/name, or the name alone for a cluster-scoped object', async (t) => {
  t.equal(namespacedKey('team-a', 'web'), 'team-a/web')
  t.equal(namespacedKey(undefined, 'reader'), 'reader')
  t.equal(namespacedKey('', 'reader'), 'reader', 'an empty namespace is none')
  t.strictSame(parseNamespacedKey('team-a/web'), { namespace: 'team-a', name: 'web' })
  t.strictSame(parseNamespacedKey('reader'), { name: 'reader' })
})

t.test('refOf leaves an empty namespace out; describeObject names kind, namespace and name', async (t) => {
  t.strictSame(refOf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } }), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: 'ns',
    name: 'a',
  })
  t.strictSame(refOf({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x', namespace: '' } }), {
    apiVersion: 'v1',
    kind: 'Namespace',
    name: 'x',
  })
  t.equal(describeObject({ kind: 'ConfigMap', namespace: 'ns', name: 'a' }), 'ConfigMap ns/a')
  t.equal(describeObject({ kind: 'ClusterRole', name: 'reader' }), 'ClusterRole reader')
})
