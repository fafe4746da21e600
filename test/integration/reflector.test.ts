// The reflector's recovery paths against the real API server: first sync,
// events, frozen cache objects, relist after 410 Gone, reconnect after an
// API server restart, and the watchdog for a silently stalled connection.

import t from 'tap'
import { KubeConfig } from '@kubernetes/client-node'
import { adminClient, freshNamespace, eventually, clusterInfo, restartApiServer } from './helpers/cluster.ts'
import { startProxy } from './helpers/proxy.ts'
import { KubeClient } from '../../src/kube/client.ts'
import type { KubeObject } from '../../src/api/meta.ts'
import { Reflector } from '../../src/kube/reflector.ts'

const client = adminClient()
t.teardown(() => client.close())

type CM = KubeObject & { data?: Record<string, string> }

const mkCm = (ns: string, name: string, v: string): Promise<unknown> =>
  client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v } },
  })
const setCm = (ns: string, name: string, v: string): Promise<unknown> =>
  client.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/${name}`, {
    body: { data: { v } },
    contentType: 'application/merge-patch+json',
  })

t.test('syncs, follows events and keeps cached objects frozen', async (t) => {
  const ns = await freshNamespace(t, client)
  await mkCm(ns, 'a', '1')
  const r = new Reflector<CM>(client, { path: `/api/v1/namespaces/${ns}/configmaps` }).start()
  t.teardown(() => r.stop())
  await r.waitForSync()
  t.equal(r.get(ns, 'a')?.data?.v, '1', 'initial list')
  const cached = r.get(ns, 'a') as CM
  t.throws(
    () => {
      ;(cached.data as Record<string, string>).v = 'mutated'
    },
    TypeError,
    'cached object is frozen',
  )
  await mkCm(ns, 'b', '2')
  await setCm(ns, 'a', '3')
  await client.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/b`)
  await eventually('update seen', async () => (r.get(ns, 'a')?.data?.v === '3' ? true : undefined))
  await eventually('delete seen', async () => (r.get(ns, 'b') === undefined && r.size() >= 1 ? true : undefined))
})

t.test('relists when the watch resource version is gone (410)', async (t) => {
  // PodTemplates bypass the API server's watch cache in the test control
  // plane, so a watch from a compacted resourceVersion gets a real 410 Gone.
  const ns = await freshNamespace(t, client)
  const path = `/api/v1/namespaces/${ns}/podtemplates`
  const mkPt = (name: string, v: string): Promise<unknown> =>
    client.request('POST', path, {
      body: {
        apiVersion: 'v1',
        kind: 'PodTemplate',
        metadata: { name, labels: { v } },
        template: { spec: { containers: [{ name: 'c', image: 'x' }] } },
      },
    })
  await mkPt('a', '1')
  const r = new Reflector<KubeObject>(client, { path }).start()
  t.teardown(() => r.stop())
  await r.waitForSync()
  // The harness compacts every 20 s; wait until resourceVersion 1 is gone.
  await eventually(
    'resourceVersion 1 compacted',
    async () => {
      const probe = new Reflector<KubeObject>(client, { path })
      ;(probe as unknown as { resourceVersion: string }).resourceVersion = '1'
      const outcome = await (probe as unknown as { watchOnce(s: AbortSignal): Promise<string> }).watchOnce(AbortSignal.timeout(3000))
      return outcome === 'gone' ? true : undefined
    },
    90_000,
    2000,
  )
  ;(r as unknown as { resourceVersion: string }).resourceVersion = '1'
  r.restartWatch()
  await eventually('relist after 410', async () => ((r.recoveries['relist-gone'] ?? 0) >= 1 ? true : undefined))
  await mkPt('b', '2')
  await eventually('watch resumed after relist', async () => (r.get(ns, 'b') ? true : undefined))
  t.ok(r.get(ns, 'a'), 'relisted state kept the existing object')
})

t.test('recovers after the API server restarts', async (t) => {
  const ns = await freshNamespace(t, client)
  await mkCm(ns, 'a', '1')
  const r = new Reflector<CM>(client, { path: `/api/v1/namespaces/${ns}/configmaps`, minBackoffMs: 100, maxBackoffMs: 1000 }).start()
  t.teardown(() => r.stop())
  await r.waitForSync()
  await restartApiServer()
  await setCm(ns, 'a', 'after-restart')
  await eventually('change after restart seen', async () => (r.get(ns, 'a')?.data?.v === 'after-restart' ? true : undefined), 60_000)
  t.ok((r.recoveries.error ?? 0) >= 1, 'the broken watch was counted as an error and retried')
})

t.test('a silently stalled watch is detected and replaced', async (t) => {
  const ns = await freshNamespace(t, client)
  await mkCm(ns, 'a', '1')
  const proxy = await startProxy(clusterInfo().server)
  t.teardown(() => proxy.close())
  const kc = new KubeConfig()
  kc.loadFromFile(clusterInfo().kubeconfig)
  const cluster = kc.getCurrentCluster()
  if (!cluster) throw new Error('no cluster')
  kc.clusters = kc.clusters.map((c) => (c.name === cluster.name ? { ...c, server: proxy.url, tlsServerName: 'localhost' } : c))
  const viaProxy = new KubeClient(kc)
  t.teardown(() => viaProxy.close())
  const r = new Reflector<CM>(viaProxy, { path: `/api/v1/namespaces/${ns}/configmaps`, stallMs: 2000, minBackoffMs: 100 }).start()
  t.teardown(() => r.stop())
  await r.waitForSync()
  proxy.freeze()
  await setCm(ns, 'a', 'during-stall')
  await new Promise((res) => setTimeout(res, 3000))
  t.equal(r.get(ns, 'a')?.data?.v, '1', 'nothing arrives through the frozen connection')
  proxy.thaw()
  await eventually(
    'stall detected and change delivered',
    async () => (r.get(ns, 'a')?.data?.v === 'during-stall' ? true : undefined),
    30_000,
  )
  t.ok((r.recoveries.stall ?? 0) >= 1, 'the watchdog fired')
})
