// The tenancy scope of rendered objects (src/render/grants.ts): an instance
// renders into its own namespace; other namespaces and cluster-scoped kinds
// need a grant of the Template.

import t from 'tap'
import type { ResourceGrant, Template } from '../../src/api/template.ts'
import { type Access, accessAllowed, grantCovers, objectScopeProblem } from '../../src/render/grants.ts'

function template(objects?: ResourceGrant[]): Template {
  return { metadata: { name: 'web', namespace: 'platform' }, spec: { gotemplate: '', ...(objects ? { grants: { objects } } : {}) } }
}

const obj = (apiVersion: string, kind: string, name: string, namespace?: string) => ({
  apiVersion,
  kind,
  metadata: namespace === undefined ? { name } : { name, namespace },
})

t.test('objects in the instance namespace need no grant', async (t) => {
  t.equal(
    objectScopeProblem(template(), 'team-a', [
      { object: obj('v1', 'ConfigMap', 'a', 'team-a'), namespaced: true },
      { object: obj('apps/v1', 'Deployment', 'b', 'team-a'), namespaced: true },
    ]),
    undefined,
  )
})

t.test('a namespaced object in another namespace is refused without a grant, and named', async (t) => {
  t.equal(
    objectScopeProblem(template(), 'team-a', [
      { object: obj('v1', 'ConfigMap', 'a', 'team-a'), namespaced: true },
      { object: obj('v1', 'ConfigMap', 'cfg', 'victim'), namespaced: true },
    ]),
    'rendered object 2: ConfigMap victim/cfg, outside namespace team-a; Template platform/web does not grant it (spec.grants.objects)',
  )
})

t.test('a cluster-scoped object is refused without a grant', async (t) => {
  t.equal(
    objectScopeProblem(template(), 'team-a', [
      { object: obj('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'root', undefined), namespaced: false },
    ]),
    'rendered object 1: ClusterRoleBinding.rbac.authorization.k8s.io root (cluster-scoped); Template platform/web does not grant it (spec.grants.objects)',
  )
})

t.test('grants open exactly what they name', async (t) => {
  const tpl = template([
    { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', names: ['reader'] },
    { kind: 'ConfigMap', namespace: 'monitoring' },
    { apiGroup: '*', kind: '*', namespace: 'shared' },
  ])
  const ok = (object: ReturnType<typeof obj>, namespaced: boolean) => objectScopeProblem(tpl, 'team-a', [{ object, namespaced }])
  t.equal(ok(obj('rbac.authorization.k8s.io/v1', 'ClusterRole', 'reader'), false), undefined)
  t.match(ok(obj('rbac.authorization.k8s.io/v1', 'ClusterRole', 'admin'), false), /ClusterRole\.rbac\.authorization\.k8s\.io admin/)
  t.equal(ok(obj('v1', 'ConfigMap', 'x', 'monitoring'), true), undefined)
  t.match(ok(obj('v1', 'Secret', 'x', 'monitoring'), true), /Secret monitoring\/x, outside namespace team-a/)
  t.equal(ok(obj('apps/v1', 'Deployment', 'x', 'shared'), true), undefined)
  t.match(
    ok(obj('v1', 'Namespace', 'shared'), false),
    /Namespace shared \(cluster-scoped\)/,
    'a namespace grant does not cover cluster-scoped kinds',
  )
})

t.test('an object of a kind the API does not serve must name the instance namespace', async (t) => {
  t.equal(objectScopeProblem(template(), 'team-a', [{ object: obj('x.io/v1', 'Widget', 'w', 'team-a'), namespaced: undefined }]), undefined)
  t.match(
    objectScopeProblem(template(), 'team-a', [{ object: obj('x.io/v1', 'Widget', 'w'), namespaced: undefined }]),
    /rendered object 1 \(x\.io\/v1 Widget w\): the API server does not serve this kind/,
  )
  t.match(
    objectScopeProblem(template(), 'team-a', [{ object: obj('x.io/v1', 'Widget', 'w', 'victim'), namespaced: undefined }]),
    /does not serve/,
  )
})

t.test('grantCovers: names restrict GETs and exclude LISTs; namespaces and groups match exactly or by "*"', async (t) => {
  const get = (namespace: string | undefined, name?: string): Access => ({ group: '', kind: 'Secret', namespace, name })
  t.ok(grantCovers({ kind: 'Secret', namespace: 'a', names: ['x'] }, get('a', 'x')))
  t.notOk(grantCovers({ kind: 'Secret', namespace: 'a', names: ['x'] }, get('a', undefined)), 'a LIST reads every name')
  t.ok(grantCovers({ kind: 'Secret', namespace: 'a' }, get('a', undefined)))
  t.notOk(grantCovers({ kind: 'Secret', namespace: 'a' }, get('*', undefined)), 'one namespace does not open every namespace')
  t.ok(grantCovers({ kind: 'Secret', namespace: '*' }, get('*', undefined)))
  t.notOk(grantCovers({ kind: 'Secret', namespace: '*' }, get(undefined, 'x')), 'a namespaced grant is not a cluster-scoped one')
  t.notOk(grantCovers({ kind: 'Secret' }, get('a', 'x')), 'a cluster-scoped grant is not a namespaced one')
  t.notOk(grantCovers({ apiGroup: 'apps', kind: 'Secret', namespace: '*' }, get('a', 'x')))
  t.ok(grantCovers({ apiGroup: '*', kind: '*', namespace: '*' }, get('a', 'x')))
})

t.test('accessAllowed: the instance namespace is free, a LIST beyond it is not, malformed grants grant nothing', async (t) => {
  t.ok(accessAllowed(undefined, { group: '', kind: 'Secret', namespace: 'team-a', name: 'x' }, 'team-a'))
  t.ok(accessAllowed(undefined, { group: '', kind: 'Pod', namespace: 'team-a', name: undefined }, 'team-a'))
  t.notOk(accessAllowed(undefined, { group: '', kind: 'Pod', namespace: '*', name: undefined }, 'team-a'))
  t.notOk(
    accessAllowed([{ namespace: '*' } as unknown as ResourceGrant], { group: '', kind: 'Pod', namespace: '*', name: undefined }, 'team-a'),
  )
})
