// WatchRegistry.waitForSync: the bounded wait the manager makes at start for
// the drift caches of the kinds its instances track. It ends when every watch
// synced or could not start, and never outlasts its bound.

import t from 'tap'
import type { KubeObject } from '../../src/api/meta.ts'
import { WatchRegistry } from '../../src/controller/registry.ts'
import type { Reflector } from '../../src/kube/reflector.ts'

/** A watch that syncs when told to; only what the registry calls. */
function fakeWatch(): { reflector: Reflector<KubeObject>; sync(): void } {
  let synced = false
  const waiters: (() => void)[] = []
  const reflector = {
    start: () => {},
    stop: async () => {},
    hasSynced: () => synced,
    lastError: undefined,
    waitForSync: (signal?: AbortSignal) =>
      synced
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            waiters.push(resolve)
            signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true })
          }),
  } as unknown as Reflector<KubeObject>
  return {
    reflector,
    sync: () => {
      synced = true
      for (const w of waiters.splice(0)) w()
    },
  }
}

t.test('waits for every watch to sync', async (t) => {
  const a = fakeWatch()
  const b = fakeWatch()
  const registry = new WatchRegistry((k) => (k === 'a' ? a.reflector : b.reflector))
  registry.setOwnerKeys('o', ['a', 'b'])
  let done = false
  const wait = registry.waitForSync(['a', 'b'], 10_000).then(() => {
    done = true
  })
  await new Promise((r) => setTimeout(r, 20))
  a.sync()
  await new Promise((r) => setTimeout(r, 20))
  t.notOk(done, 'b has not synced yet')
  b.sync()
  await wait
  t.ok(done)
})

t.test('ends at its bound, for a watch that could not start, or for a key nobody watches', async (t) => {
  const never = fakeWatch()
  const registry = new WatchRegistry((k) => {
    if (k === 'broken') throw new Error('no such kind')
    return never.reflector
  })
  registry.setOwnerKeys('o', ['never', 'broken'])
  const started = Date.now()
  await registry.waitForSync(['never', 'broken', 'unwatched'], 100)
  const took = Date.now() - started
  t.ok(took >= 90, `waited for the bound (${took} ms)`)
  const ac = new AbortController()
  const aborted = registry.waitForSync(['never'], 60_000, ac.signal)
  ac.abort()
  await aborted
  t.pass('an abort ends the wait')
})
