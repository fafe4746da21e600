import t from 'tap'
import { gvkString, IdentityError, parseGvkString, parseResourceKey, resourceKey, splitApiVersion } from '../../src/render/identity.ts'
import type { ObjectRef } from '../../src/render/types.ts'

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
    t.strictSame(splitApiVersion(apiVersion), { group, version })
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
  t.test(`resourceKey ${key}`, async (t) => {
    t.equal(resourceKey(ref), key)
    t.strictSame(parseResourceKey(key), ref)
  })
}

t.test('an empty namespace is the same object as none', async (t) => {
  t.equal(resourceKey({ apiVersion: 'v1', kind: 'Namespace', namespace: '', name: 'x' }), '/v1/Namespace//x')
})

t.test('keys of different objects differ', async (t) => {
  const keys = new Set([
    resourceKey({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: 'b' }),
    resourceKey({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'b', name: 'a' }),
    resourceKey({ apiVersion: 'v1', kind: 'Secret', namespace: 'a', name: 'b' }),
    resourceKey({ apiVersion: 'v2', kind: 'ConfigMap', namespace: 'a', name: 'b' }),
    resourceKey({ apiVersion: 'x/v1', kind: 'ConfigMap', namespace: 'a', name: 'b' }),
    resourceKey({ apiVersion: 'v1', kind: 'ConfigMap', name: 'b' }),
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
  ['a name with a slash', () => resourceKey({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a/b' })],
  ['an empty name', () => resourceKey({ apiVersion: 'v1', kind: 'ConfigMap', name: '' })],
  ['a namespace with a slash', () => resourceKey({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a/b', name: 'c' })],
  ['a key with too few parts', () => parseResourceKey('/v1/ConfigMap/x')],
  ['a key without a name', () => parseResourceKey('/v1/ConfigMap/ns/')],
]

for (const [what, fn] of bad) {
  t.test(`rejects ${what}`, async (t) => {
    t.throws(fn, IdentityError)
  })
}
