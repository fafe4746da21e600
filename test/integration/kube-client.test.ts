// The client's requests as kube-apiserver reads them: a DELETE with a body
// (DeleteOptions with preconditions, as prune and the tests send) that the
// server answers without reading it must not spoil the next request on the
// same keep-alive connection. Sent chunked, it did: the next request failed
// with a bare "400 Bad Request" from Go's HTTP server.

import t from 'tap'
import { adminClient, freshNamespace } from './helpers/cluster.ts'
import { KubeApiError } from '../../src/kube/errors.ts'

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
