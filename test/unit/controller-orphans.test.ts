// Which objects count as orphans (our finalizer, an owner UID no instance
// has), and the work-queue keys of them.

import t from 'tap'
import { FINALIZER_RESOURCE, LABEL_INSTANCE_NAME, LABEL_INSTANCE_NAMESPACE, LABEL_INSTANCE_UID } from '../../src/api/names.ts'
import { orphanKey, orphanOwner, parseOrphanKey } from '../../src/controller/orphans.ts'

const labels = { [LABEL_INSTANCE_UID]: 'u-1', [LABEL_INSTANCE_NAMESPACE]: 'team-a', [LABEL_INSTANCE_NAME]: 'web' }
const obj = (meta: { labels?: Record<string, string>; finalizers?: string[] }) => ({
  metadata: { name: 'cfg', namespace: 'team-a', ...meta },
})
const nobody = (): boolean => false

t.test('an object with our finalizer whose owner UID is unknown is an orphan, named by its labels', async (t) => {
  t.same(orphanOwner(obj({ labels, finalizers: ['example.com/other', FINALIZER_RESOURCE] }), nobody), {
    uid: 'u-1',
    namespace: 'team-a',
    name: 'web',
  })
})

t.test('not an orphan: a known owner, no finalizer of ours, no owner label', async (t) => {
  t.equal(
    orphanOwner(obj({ labels, finalizers: [FINALIZER_RESOURCE] }), (uid) => uid === 'u-1'),
    undefined,
    'owner known',
  )
  t.equal(orphanOwner(obj({ labels, finalizers: ['example.com/other'] }), nobody), undefined, 'our finalizer already released')
  t.equal(orphanOwner(obj({ labels }), nobody), undefined, 'no finalizers at all')
  t.equal(orphanOwner(obj({ finalizers: [FINALIZER_RESOURCE] }), nobody), undefined, 'not stamped by us')
})

t.test('an orphan without name labels still has its UID', async (t) => {
  t.same(orphanOwner(obj({ labels: { [LABEL_INSTANCE_UID]: 'u-2' }, finalizers: [FINALIZER_RESOURCE] }), nobody), {
    uid: 'u-2',
    namespace: undefined,
    name: undefined,
  })
})

t.test('queue keys round-trip, cluster-scoped objects included', async (t) => {
  t.same(parseOrphanKey(orphanKey('apps/v1/Deployment', 'team-a', 'web')), { kind: 'apps/v1/Deployment', namespace: 'team-a', name: 'web' })
  t.same(parseOrphanKey(orphanKey('rbac.authorization.k8s.io/v1/ClusterRole', undefined, 'reader')), {
    kind: 'rbac.authorization.k8s.io/v1/ClusterRole',
    namespace: undefined,
    name: 'reader',
  })
})
