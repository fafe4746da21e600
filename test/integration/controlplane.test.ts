// Smoke tests of the local control plane itself: each asserts behaviour that
// only a real kube-apiserver (+ etcd + kube-controller-manager) shows.

import t from 'tap'
import { createServer } from 'node:https'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { adminClient, freshNamespace, issueServingCert, eventually } from './helpers/cluster.ts'
import { installValidatingWebhook, waitUntilCalled } from './helpers/webhook.ts'
import { KubeApiError } from '../../src/kube/errors.ts'
import { CONTENT_APPLY, type WatchEvent } from '../../src/kube/client.ts'

const client = adminClient()
t.teardown(() => client.close())

t.test('the API server reports the version it was built as', async (t) => {
  const v = await client.get<{ gitVersion: string; minor: string }>('/version')
  t.equal(v.gitVersion, 'v1.37.2')
  t.equal(v.minor, '37')
})

t.test('a CRD becomes Established and appears in discovery', async (t) => {
  const group = `smoke${Date.now().toString(36)}.template-sync.test`
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1 } } } },
            },
          },
        },
      ],
    },
  }
  await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })
  t.teardown(() => client.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`))
  await eventually('CRD Established', async () => {
    const got = await client.get<{ status?: { conditions?: { type: string; status: string }[] } }>(
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`,
    )
    return got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined
  })
  const disc = await eventually('discovery', () => client.getOrUndefined<{ resources: { name: string }[] }>(`/apis/${group}/v1`))
  t.ok(
    disc.resources.some((r) => r.name === 'widgets'),
    'widgets served',
  )
  const ns = await freshNamespace(t, client)
  // Structural schema validation is enforced by the server.
  const bad = await client
    .request('POST', `/apis/${group}/v1/namespaces/${ns}/widgets`, {
      body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 0 } },
    })
    .catch((e: unknown) => e)
  t.ok(bad instanceof KubeApiError && bad.code === 422, 'schema minimum rejects size 0')
})

t.test('create, get and watch a ConfigMap', async (t) => {
  const ns = await freshNamespace(t, client)
  const path = `/api/v1/namespaces/${ns}/configmaps`
  const events: WatchEvent[] = []
  const ac = new AbortController()
  const watching = client.watch(path, { allowWatchBookmarks: true }, (e) => events.push(e), ac.signal).catch(() => {})
  await new Promise((r) => setTimeout(r, 300))
  const created = await client.request<{ metadata: { resourceVersion: string } }>('POST', path, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: '1' } },
  })
  t.ok(created.metadata.resourceVersion, 'has a resourceVersion')
  const got = await client.get<{ data: Record<string, string> }>(`${path}/cm`)
  t.same(got.data, { a: '1' })
  await client.request('PATCH', `${path}/cm`, { body: { data: { a: '2' } }, contentType: 'application/merge-patch+json' })
  await eventually('ADDED and MODIFIED events', async () =>
    events.some((e) => e.type === 'ADDED') && events.some((e) => e.type === 'MODIFIED') ? true : undefined,
  )
  ac.abort()
  await watching
  const modified = events.find((e) => e.type === 'MODIFIED')
  t.same((modified?.object as { data?: unknown } | undefined)?.data, { a: '2' })
})

t.test('server-side apply with a field manager, then a dry-run apply that changes nothing', async (t) => {
  const ns = await freshNamespace(t, client)
  const path = `/api/v1/namespaces/${ns}/configmaps/applied`
  const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: ns }, data: { k: 'v' } }
  type CM = { metadata: { resourceVersion: string; managedFields: { manager: string; operation: string }[] }; data: Record<string, string> }
  const first = await client.request<CM>('PATCH', path, {
    body,
    contentType: CONTENT_APPLY,
    query: { fieldManager: 'template-sync', force: true },
  })
  t.ok(
    first.metadata.managedFields.some((f) => f.manager === 'template-sync' && f.operation === 'Apply'),
    'template-sync owns its fields',
  )
  const dry = await client.request<CM>('PATCH', path, {
    body,
    contentType: CONTENT_APPLY,
    query: { fieldManager: 'template-sync', force: true, dryRun: 'All' },
  })
  t.equal(dry.metadata.resourceVersion, first.metadata.resourceVersion, 'dry-run of the same intent is a no-op')
  const changed = await client.request<CM>('PATCH', path, {
    body: { ...body, data: { k: 'other' } },
    contentType: CONTENT_APPLY,
    query: { fieldManager: 'template-sync', force: true, dryRun: 'All' },
  })
  t.equal(changed.data.k, 'other', 'dry-run shows the change')
  const live = await client.get<CM>(path)
  t.equal(live.data.k, 'v', 'dry-run wrote nothing')
})

t.test('a webhook with matchConditions receives a real AdmissionReview and its denial reaches the client', async (t) => {
  const ns = await freshNamespace(t, client)
  const { cert, key, ca } = issueServingCert(['127.0.0.1', 'localhost'])
  const received: { uid: string; operation: string; name: string }[] = []
  const server = createServer({ cert, key, minVersion: 'TLSv1.2' }, (req: IncomingMessage, res: ServerResponse) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (c: string) => (raw += c))
    req.on('end', () => {
      const review = JSON.parse(raw) as { request: { uid: string; operation: string; name: string } }
      received.push({ uid: review.request.uid, operation: review.request.operation, name: review.request.name })
      res.setHeader('Content-Type', 'application/json')
      res.end(
        JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: { uid: review.request.uid, allowed: false, status: { code: 403, message: 'smoke webhook says no' } },
        }),
      )
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  const port = (server.address() as { port: number }).port
  const name = `smoke-${Date.now().toString(36)}`
  const uninstall = await installValidatingWebhook(client, {
    name,
    url: `https://127.0.0.1:${port}/validate`,
    caPem: ca,
    rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'], scope: 'Namespaced' }],
    matchConditions: [{ name: 'only-guarded', expression: `has(object.metadata.labels) && 'smoke-guarded' in object.metadata.labels` }],
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
  })
  t.teardown(uninstall)
  const cms = `/api/v1/namespaces/${ns}/configmaps`
  const guarded = (n: string): Record<string, unknown> => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: n, labels: { 'smoke-guarded': 'yes' } },
  })
  await waitUntilCalled(
    () => client.request('POST', cms, { body: guarded('probe'), query: { dryRun: 'All' } }),
    () => received.length > 0,
  )
  const before = received.length
  // Not matching the condition: never sent to the webhook, and allowed.
  await client.request('POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'free' } } })
  t.equal(received.length, before, 'an object outside matchConditions is not sent')
  const denied = await client.request('POST', cms, { body: guarded('blocked') }).catch((e: unknown) => e)
  t.ok(denied instanceof KubeApiError, 'request rejected')
  t.match((denied as KubeApiError).apiMessage, /smoke webhook says no/, 'the denial message reaches the client')
  t.equal((denied as KubeApiError).code, 403)
  t.equal(received.at(-1)?.name, 'blocked', 'the webhook saw the real request')
  t.equal(received.at(-1)?.operation, 'CREATE')
})

t.test('namespace deletion completes (namespace controller runs)', async (t) => {
  const name = `smoke-del-${Date.now().toString(36)}`
  await client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } })
  await client.request('POST', `/api/v1/namespaces/${name}/configmaps`, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } },
  })
  await client.request('DELETE', `/api/v1/namespaces/${name}`)
  await eventually(
    'namespace gone',
    async () => ((await client.getOrUndefined(`/api/v1/namespaces/${name}`)) === undefined ? true : undefined),
    60_000,
    250,
  )
  t.pass('namespace and its contents were removed')
})
