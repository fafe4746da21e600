// The discovery watch over a scripted API: after the initial lists, each CRD
// or APIService added, changed or deleted names its group; without RBAC to
// list them it says so once and stops asking.

import t from 'tap'
import pino from 'pino'
import { Writable } from 'node:stream'
import { DiscoveryWatch, discoveryGroupOf } from '../../src/controller/discovery-watch.ts'
import type { KubeClient, WatchEvent } from '../../src/kube/client.ts'
import { KubeApiError } from '../../src/kube/errors.ts'

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions'
const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices'

const meta = (name: string, rv: string) => ({ metadata: { name, resourceVersion: rv } })

/** Lists answer `items`; each watch hands its callback to `watchers` and ends when aborted. */
function scripted(items: Record<string, { metadata: { name: string; resourceVersion: string } }[]>, refuse: readonly string[] = []) {
  const requests: string[] = []
  const watchers = new Map<string, (e: WatchEvent) => void>()
  const client = {
    async request(_method: string, path: string) {
      requests.push(`list ${path}`)
      if (refuse.includes(path)) throw new KubeApiError('GET', path, 403, 'Forbidden', `${path} is forbidden`)
      return { metadata: { resourceVersion: '10' }, items: items[path] ?? [] }
    },
    async watch(path: string, _q: unknown, onEvent: (e: WatchEvent) => void, signal?: AbortSignal) {
      requests.push(`watch ${path}`)
      watchers.set(path, onEvent)
      await new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }))
    },
  } as unknown as KubeClient
  return { client, requests, watchers }
}

function memoryLog(): { log: pino.Logger; lines: () => string[] } {
  const lines: string[] = []
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'))
      done()
    },
  })
  return { log: pino({ level: 'warn' }, sink), lines: () => lines }
}

const until = async (what: string, ok: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 5))
  if (!ok()) throw new Error(`timed out waiting for ${what}`)
}

t.test('after the initial lists, each event names the group of the CRD or APIService', async (t) => {
  const api = scripted({ [CRDS]: [meta('widgets.old.example.com', '1')], [APISERVICES]: [meta('v1.apps', '2')] })
  const changed: string[] = []
  const w = new DiscoveryWatch({ client: api.client, log: pino({ level: 'silent' }), onRecover: () => {}, changed: (g) => changed.push(g) })
  w.start()
  t.teardown(() => w.stop())
  await until('both watches', () => api.watchers.size === 2)
  t.same(changed, [], 'the initial lists change nothing')
  api.watchers.get(CRDS)?.({ type: 'ADDED', object: meta('widgets.acc90.example.com', '11') })
  api.watchers.get(CRDS)?.({ type: 'MODIFIED', object: meta('widgets.acc90.example.com', '12') })
  api.watchers.get(APISERVICES)?.({ type: 'ADDED', object: meta('v1.acc90.example.com', '13') })
  api.watchers.get(APISERVICES)?.({ type: 'MODIFIED', object: meta('v1.', '14') })
  api.watchers.get(CRDS)?.({ type: 'DELETED', object: meta('widgets.old.example.com', '15') })
  t.same(changed, ['acc90.example.com', 'acc90.example.com', 'acc90.example.com', '', 'old.example.com'])
})

t.test('a watch the reconciler may not list says so once and stops; the other goes on', async (t) => {
  const api = scripted({}, [CRDS])
  const logs = memoryLog()
  const recovered: string[] = []
  const changed: string[] = []
  const w = new DiscoveryWatch({
    client: api.client,
    log: logs.log,
    onRecover: (_w, d) => recovered.push(d),
    changed: (g) => changed.push(g),
  })
  w.start()
  t.teardown(() => w.stop())
  await until('the APIService watch', () => api.watchers.has(APISERVICES))
  await new Promise((r) => setTimeout(r, 400))
  t.equal(api.requests.filter((r) => r === `list ${CRDS}`).length, 1, 'the CRD list is not retried')
  t.equal(logs.lines().length, 1, 'one log line')
  t.match(logs.lines()[0], 'cannot watch customresourcedefinitions')
  t.match(logs.lines()[0], 'grant get, list and watch on customresourcedefinitions.apiextensions.k8s.io')
  t.same(recovered, [], 'not reported as a recovery')
  api.watchers.get(APISERVICES)?.({ type: 'ADDED', object: meta('v1.acc90.example.com', '11') })
  t.same(changed, ['acc90.example.com'])
})

t.test('the API group a CRD or an APIService is about, from its name', async (t) => {
  t.equal(discoveryGroupOf('widgets.acc90.example.com'), 'acc90.example.com')
  t.equal(discoveryGroupOf('v1beta1.metrics.k8s.io'), 'metrics.k8s.io')
  t.equal(discoveryGroupOf('v1.'), '', 'the core group')
  t.equal(discoveryGroupOf('nodot'), undefined)
})
