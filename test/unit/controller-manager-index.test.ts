// The manager's event handlers over its indexes, with the three primary caches
// fed by a fake API: which instances a Template, Namespace or instance event
// queues, at which priority, after instances move between Templates, leave and
// appear in other namespaces, and are deleted. The indexes alone are in
// kube-store-index.test.ts; the manager against a real API server in
// test/integration.

import t from 'tap'
import pino from 'pino'
import { API_VERSION, GROUP, VERSION } from '../../src/api/names.ts'
import type { KubeClient, Query, RequestInit, WatchEvent } from '../../src/kube/client.ts'
import { Manager } from '../../src/controller/manager.ts'
import { PRIORITY } from '../../src/controller/queue.ts'
import { createRenderPipeline, createTemplateValidator } from '../../src/reconciler/wiring.ts'
import { createHelmSupport } from '../../src/reconciler/helm.ts'

const base = `/apis/${GROUP}/${VERSION}`
const PATHS = { instances: `${base}/templateinstances`, templates: `${base}/templates`, namespaces: '/api/v1/namespaces' }

/** Lists and watches of the three collections; a test pushes watch events. */
class FakeApi {
  private rv = 1
  readonly lists = new Map<string, Record<string, unknown>[]>()
  private readonly watchers = new Map<string, (e: WatchEvent) => void>()

  async request<T>(method: string, path: string, _init?: RequestInit): Promise<T> {
    const items = this.lists.get(path)
    if (method !== 'GET' || items === undefined) throw new Error(`fake API: unexpected ${method} ${path}`)
    return { metadata: { resourceVersion: String(this.rv) }, items } as T
  }

  watch(path: string, _q: Query, onEvent: (e: WatchEvent) => void, signal?: AbortSignal): Promise<void> {
    this.watchers.set(path, onEvent)
    return new Promise((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }))
  }

  watching(): boolean {
    return Object.values(PATHS).every((p) => this.watchers.has(p))
  }

  emit(path: string, type: WatchEvent['type'], object: Record<string, unknown>): void {
    const fn = this.watchers.get(path)
    if (!fn) throw new Error(`fake API: nobody watches ${path}`)
    const meta = object.metadata as Record<string, unknown>
    fn({ type, object: { ...object, metadata: { ...meta, resourceVersion: String(++this.rv) } } })
  }
}

const instance = (ns: string, name: string, template: string, generation = 1): Record<string, unknown> => ({
  apiVersion: API_VERSION,
  kind: 'TemplateInstance',
  metadata: { namespace: ns, name, uid: `uid-${ns}-${name}`, generation },
  spec: { templateRef: { namespace: 'tpl', name: template } },
})
const template = (name: string, generation = 1): Record<string, unknown> => ({
  apiVersion: API_VERSION,
  kind: 'Template',
  metadata: { namespace: 'tpl', name, uid: `uid-${name}`, generation },
  spec: { gotemplate: '' },
})
const namespace = (name: string, labels: Record<string, string> = {}): Record<string, unknown> => ({
  metadata: { name, uid: `uid-ns-${name}`, labels },
  status: { phase: 'Active' },
})

async function setup(t: { teardown(fn: () => unknown): void }): Promise<{ api: FakeApi; manager: Manager; queued(): Promise<string[]> }> {
  const api = new FakeApi()
  api.lists.set(PATHS.instances, [instance('a', 'i1', 't1'), instance('a', 'i2', 't2'), instance('b', 'i3', 't1')])
  api.lists.set(PATHS.templates, [])
  api.lists.set(PATHS.namespaces, [namespace('a'), namespace('b'), namespace('c')])
  const client = api as unknown as KubeClient
  const helm = createHelmSupport({ client })
  t.teardown(() => helm.close())
  const manager = new Manager({
    client,
    pipeline: createRenderPipeline(client, helm),
    validator: createTemplateValidator(helm),
    events: { normal: () => {}, warning: () => {} },
    log: pino({ level: 'silent' }),
  })
  // The caches and their handlers, without workers: what the handlers queue stays in the queue.
  const caches = [manager.instances, manager.templates, manager.namespaces]
  for (const r of caches) r.start()
  t.teardown(() => Promise.all(caches.map((r) => r.stop())))
  await Promise.all(caches.map((r) => r.waitForSync()))
  while (!api.watching()) await new Promise((r) => setImmediate(r))
  const q = manager.instanceQueue
  /** Takes everything queued so far, in hand-out order, as key@priority. */
  const queued = async (): Promise<string[]> => {
    const out: string[] = []
    while (q.len() > 0) {
      const item = await q.getWithPriority()
      if (!item) break
      out.push(`${item.key}@${item.priority}`)
      q.done(item.key)
    }
    return out
  }
  return { api, manager, queued }
}

const using = (m: Manager, tpl: string): string[] => m.instancesUsing('tpl', tpl).sort()

t.test('the initial list queues every instance at low priority, and the Template index answers', async (t) => {
  const { manager, queued } = await setup(t)
  t.strictSame((await queued()).sort(), ['a/i1@-100', 'a/i2@-100', 'b/i3@-100'])
  t.strictSame(using(manager, 't1'), ['a/i1', 'b/i3'])
  t.strictSame(using(manager, 't2'), ['a/i2'])
  t.strictSame(using(manager, 'none'), [])
})

t.test('an instance that moves to another Template leaves the first one', async (t) => {
  const { api, manager, queued } = await setup(t)
  await queued()
  api.emit(PATHS.instances, 'MODIFIED', instance('a', 'i1', 't2', 2))
  t.strictSame(await queued(), ['a/i1@0'], 'a change of the instance itself is queued at normal priority')
  t.strictSame(using(manager, 't1'), ['b/i3'])
  t.strictSame(using(manager, 't2'), ['a/i1', 'a/i2'])

  api.emit(PATHS.templates, 'ADDED', template('t2'))
  t.strictSame((await queued()).sort(), ['a/i1@-100', 'a/i2@-100'], 'a Template event fans out to its users only, at low priority')
  api.emit(PATHS.templates, 'MODIFIED', template('t1', 2))
  t.strictSame(await queued(), ['b/i3@-100'])
  api.emit(PATHS.templates, 'DELETED', template('t1', 2))
  t.strictSame(await queued(), ['b/i3@-100'], 'so does its deletion')
})

t.test('a namespace label change queues the instances of that namespace only', async (t) => {
  const { api, queued } = await setup(t)
  await queued()
  api.emit(PATHS.namespaces, 'MODIFIED', namespace('a', { team: 'x' }))
  t.strictSame(await queued(), ['a/i1@-100', 'a/i2@-100'])
  api.emit(PATHS.namespaces, 'MODIFIED', namespace('a', { team: 'x' }))
  t.strictSame(await queued(), [], 'an update that leaves the labels as they were queues nothing')
  api.emit(PATHS.namespaces, 'MODIFIED', namespace('c', { team: 'y' }))
  t.strictSame(await queued(), [], 'a namespace without instances queues nothing')
})

t.test('deleted instances leave both indexes; new ones in another namespace join them', async (t) => {
  const { api, manager, queued } = await setup(t)
  await queued()
  api.emit(PATHS.instances, 'DELETED', instance('b', 'i3', 't1'))
  t.strictSame(await queued(), ['b/i3@0'], 'the deleted instance is looked at once more (its cleanup)')
  t.strictSame(using(manager, 't1'), ['a/i1'])
  api.emit(PATHS.namespaces, 'MODIFIED', namespace('b', { team: 'z' }))
  t.strictSame(await queued(), [], 'namespace b has no instance left')

  api.emit(PATHS.instances, 'ADDED', instance('c', 'i3', 't1'))
  t.strictSame(await queued(), ['c/i3@0'], 'an instance created after the initial list is queued at normal priority')
  t.strictSame(using(manager, 't1'), ['a/i1', 'c/i3'])
  api.emit(PATHS.namespaces, 'MODIFIED', namespace('c', { team: 'y' }))
  t.strictSame(await queued(), ['c/i3@-100'])
})

t.test('a queued bulk key is raised by a later change of the instance itself', async (t) => {
  const { api, queued } = await setup(t)
  await queued()
  api.emit(PATHS.templates, 'ADDED', template('t1'))
  api.emit(PATHS.instances, 'MODIFIED', instance('b', 'i3', 't1', 2))
  t.strictSame(await queued(), [`b/i3@${PRIORITY.normal}`, `a/i1@${PRIORITY.low}`], 'queued once, ahead of the rest of the fan-out')
})
