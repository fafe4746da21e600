// The client's requests as kube-apiserver reads them: a DELETE with a body
// (DeleteOptions with preconditions, as prune and the tests send) that the
// server answers without reading it must not spoil the next request on the
// same keep-alive connection. Sent chunked, it did: the next request failed
// with a bare "400 Bad Request" from Go's HTTP server. And a finalizer
// removal from a cached copy that is behind the object.

import t from 'tap'
import { adminClient, freshNamespace } from './helpers/cluster.ts'
import { KubeApiError } from '../../src/kube/errors.ts'
import type { IdentifiedObject } from '../../src/api/meta.ts'
import { RestMapper } from '../../src/kube/discovery.ts'
import { ObjectClient } from '../../src/kube/objects.ts'

const client = adminClient()
t.teardown(() => client.close())

t.test('a DELETE refused on its preconditions leaves the connection usable', async (t) => {
  const ns = await freshNamespace(t, client)
  const path = `/api/v1/namespaces/${ns}/configmaps`
  for (let i = 0; i < 5; i++) {
    await client.request('POST', path, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` } } })
    const refused = await client
      .request('DELETE', `${path}/c${i}`, {
        body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: '1' } },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      )
    t.ok(refused instanceof KubeApiError && refused.code === 409, `delete ${i} refused on its precondition`)
    const next = await client.get<{ metadata: { name: string } }>(`${path}/c${i}`)
    t.equal(next.metadata.name, `c${i}`, `the next request on the connection is read as one (${i})`)
  }
})

t.test('removeFinalizer from a stale copy reads the object once and removes only that finalizer', async (t) => {
  const ns = await freshNamespace(t, client)
  const objects = new ObjectClient(client, new RestMapper(client))
  const path = `/api/v1/namespaces/${ns}/configmaps/held`
  const created = await client.request<IdentifiedObject>('POST', `/api/v1/namespaces/${ns}/configmaps`, {
    body: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'held', finalizers: ['example.com/a', 'example.com/ours', 'example.com/b'] },
    },
  })
  // Someone else removes another finalizer after our copy was taken: the index our patch names is now wrong.
  await client.request('PATCH', path, {
    body: [{ op: 'remove', path: '/metadata/finalizers/0' }],
    contentType: 'application/json-patch+json',
  })
  await objects.removeFinalizer({ ...created, apiVersion: 'v1', kind: 'ConfigMap' }, 'example.com/ours')
  const after = await client.get<IdentifiedObject>(path)
  t.same(after.metadata.finalizers, ['example.com/b'], 'ours removed from the fresh list, the other kept')
  // Already gone: nothing to do, no error.
  await objects.removeFinalizer({ ...created, apiVersion: 'v1', kind: 'ConfigMap' }, 'example.com/ours')
  t.same(
    (await client.get<IdentifiedObject>(path)).metadata.finalizers,
    ['example.com/b'],
    'a second call from the stale copy changes nothing',
  )
  await client.request('PATCH', path, {
    body: [{ op: 'remove', path: '/metadata/finalizers' }],
    contentType: 'application/json-patch+json',
  })
})
