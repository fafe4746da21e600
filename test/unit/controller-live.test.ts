// LiveObjects.lookup on a synced drift cache: the cached object when it holds
// one at or after our last apply; our own last apply while the cache has not
// delivered that apply's resourceVersion yet (no copy, or an older one); otherwise "unconfirmed" (absent or not ours), which the
// reconcile's dry-run settles. No request in any of these cases.

import t from 'tap'
import type { IdentifiedObject } from '../../src/api/meta.ts'
import { LiveObjects } from '../../src/controller/live.ts'
import { WatchRegistry } from '../../src/controller/registry.ts'
import { resourceVersionBefore, type Reflector } from '../../src/kube/reflector.ts'

const cm = (name: string, resourceVersion: string): IdentifiedObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', resourceVersion },
})

/** A synced drift cache of ConfigMaps that has seen everything up to `seenRv`. */
async function liveWith(cached: readonly IdentifiedObject[], seenRv: string): Promise<{ live: LiveObjects; requests: string[] }> {
  const store = new Map(cached.map((o) => [o.metadata.name, o]))
  const fake = {
    start: () => fake,
    stop: async () => {},
    hasSynced: () => true,
    lastError: undefined,
    get: (_ns: string | undefined, name: string) => store.get(name),
    isBehind: (rv: string | undefined) => resourceVersionBefore(seenRv, rv),
  }
  const drift = new WatchRegistry(() => fake as unknown as Reflector)
  drift.setOwnerKeys('ns/app', ['v1/ConfigMap'])
  await new Promise((r) => setImmediate(r))
  const requests: string[] = []
  const objects = {
    get: async (ref: { name: string }) => {
      requests.push(`GET ${ref.name}`)
      return undefined
    },
    list: async () => {
      requests.push('LIST')
      return []
    },
  }
  return { live: new LiveObjects({ objects, drift, conflicts: new WatchRegistry(() => fake as unknown as Reflector) }), requests }
}

t.test('the cached object wins over our last apply', async (t) => {
  const { live, requests } = await liveWith([cm('a', '20')], '20')
  const seen = await live.lookup(cm('a', ''), cm('a', '12'))
  t.equal(seen.live?.metadata.resourceVersion, '20')
  t.equal(seen.unconfirmed, false)
  t.same(requests, [])
})

t.test('a cached copy older than our last apply gives way to it', async (t) => {
  // The cache listed the object before our write landed; its event is still to come.
  const { live, requests } = await liveWith([cm('a', '9')], '11')
  const applied = cm('a', '12')
  const seen = await live.lookup(cm('a', ''), applied)
  t.equal(seen.live, applied, 'what we applied is what is live')
  t.equal(seen.unconfirmed, false)
  t.same(requests, [])
  const cached = await live.lookup(cm('a', ''))
  t.equal(cached.live?.metadata.resourceVersion, '9', 'without a last apply the cached copy is all there is')
})

t.test('our apply the cache is behind on stands in for the object', async (t) => {
  const { live, requests } = await liveWith([], '10')
  const applied = cm('a', '12')
  const seen = await live.lookup(cm('a', ''), applied)
  t.equal(seen.live, applied, 'what we applied is what is live')
  t.equal(seen.unconfirmed, false, 'nothing for the dry-run to find out')
  t.same(requests, [])
})

t.test('once the cache has seen our apply, an object it lacks is unconfirmed', async (t) => {
  for (const seenRv of ['12', '15']) {
    const { live, requests } = await liveWith([], seenRv)
    const seen = await live.lookup(cm('a', ''), cm('a', '12'))
    t.equal(seen.live, undefined, `cache at ${seenRv}: deleted or unlabelled since`)
    t.equal(seen.unconfirmed, true)
    t.same(requests, [])
  }
})

t.test('without a last apply, or with a version that is not decimal, an object the cache lacks is unconfirmed', async (t) => {
  const { live } = await liveWith([], '10')
  t.same(await live.lookup(cm('a', '')), { live: undefined, unconfirmed: true })
  t.same(await live.lookup(cm('a', ''), cm('a', 'abc')), { live: undefined, unconfirmed: true })
})
