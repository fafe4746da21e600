// The instance pass's driver (src/controller/instance.ts) with fakes for its
// steps: the order they run in, where a pass stops, and that the record's one
// status write ends every pass (or its failure is the pass's failure).

import t from 'tap'
import pino from 'pino'
import type { Template } from '../../src/api/template.ts'
import type { TemplateInstance, TemplateInstanceStatus } from '../../src/api/templateinstance.ts'
import { FINALIZER_INSTANCE } from '../../src/api/names.ts'
import { DEFAULT_COMPONENTS } from '../../src/api/writers.ts'
import { InstanceReconciler, type InstanceSteps } from '../../src/controller/instance.ts'
import type { RenderPipeline } from '../../src/controller/pipeline.ts'
import type { WatchRegistry } from '../../src/controller/registry.ts'
import type { IgnoreCache } from '../../src/drift/ignore-cache.ts'
import { compileIgnoreFields } from '../../src/fieldpath/compile.ts'
import type { KubeClient } from '../../src/kube/client.ts'
import { KubeApiError } from '../../src/kube/errors.ts'
import { KIND_NOT_SERVED, UnknownKindError } from '../../src/kube/discovery.ts'
import { kindNotFound } from '../../src/controller/report.ts'
import { RECHECK_CHANGED_MS, RECHECK_RECENT_MS } from '../../src/controller/kind-waiters.ts'
import type { ObjectClient } from '../../src/kube/objects.ts'

const template: Template = {
  metadata: { name: 'web', namespace: 'platform', uid: 't-uid', generation: 1 },
  spec: { gotemplate: 'x', sync: { mode: 'revert' } },
}

function instance(status: TemplateInstance['status'] = {}): TemplateInstance {
  return {
    metadata: { name: 'app', namespace: 'team-a', uid: 'i-uid', generation: 1, resourceVersion: '5', finalizers: [FINALIZER_INSTANCE] },
    spec: { templateRef: { name: 'web', namespace: 'platform' } },
    status,
  }
}

interface World {
  readonly calls: string[]
  readonly requests: string[]
  /** The body of each status write, in order. */
  readonly statuses: TemplateInstanceStatus[]
  readonly events: string[]
  readonly released: string[]
  reconciler: InstanceReconciler
}

interface WorldOptions {
  steps?: Partial<InstanceSteps>
  inst?: TemplateInstance
  template?: Template
  /** Every status write fails with it; a function decides per write (0 is the first). */
  writeFails?: unknown
}

function world(opts: WorldOptions = {}): World {
  const calls: string[] = []
  const requests: string[] = []
  const statuses: TemplateInstanceStatus[] = []
  const events: string[] = []
  const released: string[] = []
  const inst = opts.inst ?? instance()
  const client = {
    async request(method: string, path: string, init?: { body?: { status?: TemplateInstanceStatus } }) {
      requests.push(`${method} ${path}`)
      if (path.endsWith('/status')) {
        statuses.push(init?.body?.status ?? {})
        const fails = typeof opts.writeFails === 'function' ? opts.writeFails(statuses.length - 1) : opts.writeFails
        if (fails !== undefined) throw fails
      }
      return { metadata: { resourceVersion: String(6 + requests.length) }, status: {} }
    },
  } as unknown as KubeClient
  const registry = (name: string) =>
    ({
      setOwnerKeys: (owner: string, keys: Iterable<string>) => calls.push(`${name}.own ${owner} ${[...keys].join(',')}`),
      release: (owner: string) => released.push(`${name} ${owner}`),
      get: () => undefined,
      state: (key: string) => ({ key, synced: true }),
      retryFailed: () => {},
    }) as unknown as WatchRegistry
  // Each fake step records its name, then does what the real one would report.
  const step = <K extends keyof InstanceSteps>(name: K, impl: InstanceSteps[K]): InstanceSteps[K] =>
    ((...args: never[]) => {
      calls.push(name)
      return (impl as (...a: never[]) => unknown)(...args)
    }) as InstanceSteps[K]
  const steps: InstanceSteps = {
    resolveTemplate: step('resolveTemplate', (i, get) => {
      const found = get(i.spec.templateRef.namespace, i.spec.templateRef.name)
      return found
        ? { template: found, condition: { type: 'TemplateResolved', status: 'True', reason: 'Success' } }
        : { condition: { type: 'TemplateResolved', status: 'False', reason: 'TemplateNotFound' } }
    }),
    syncFrozen: step('syncFrozen', async () => {}),
    renderObjects: step('renderObjects', async () => ({
      ok: true,
      objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'team-a' } }],
      values: {},
    })),
    recordKinds: step('recordKinds', async () => ['v1/ConfigMap']),
    syncObjects: step('syncObjects', async () => ({ applied: true, clean: true })),
    refreshOutputs: step('refreshOutputs', async () => {}),
    setSynced: step('setSynced', () => false),
  }
  for (const [name, impl] of Object.entries(opts.steps ?? {}))
    Object.assign(steps, { [name]: step(name as keyof InstanceSteps, impl as never) })
  const reconciler = new InstanceReconciler({
    client,
    objects: { mapper: { invalidateGroup: (g: string) => calls.push(`mapper.forget ${g}`) } } as unknown as ObjectClient,
    getTemplate: (ns, name) => {
      const t = opts.template === undefined ? template : opts.template
      return t.metadata?.namespace === ns && t.metadata.name === name ? t : undefined
    },
    getInstance: (ns, name) => (ns === 'team-a' && name === 'app' ? inst : undefined),
    getNamespaceLabels: () => ({}),
    drift: registry('drift'),
    sources: registry('sources'),
    conflicts: registry('conflicts'),
    pipeline: {
      checkTargetNamespace: () => ({ allowed: true }),
      stamp: (o: unknown) => o,
      discoveryChanged: (g: string) => calls.push(`pipeline.forget ${g}`),
    } as unknown as RenderPipeline,
    ignore: { enforced: () => ({ ignore: compileIgnoreFields([]) }) } as unknown as IgnoreCache,
    events: { normal: (_o, r) => events.push(r), warning: (_o, r) => events.push(r) },
    log: pino({ level: 'silent' }),
    now: () => new Date('2026-01-01T00:00:00Z'),
    components: DEFAULT_COMPONENTS,
    steps,
  })
  return { calls, requests, statuses, events, released, reconciler }
}

const names = (calls: readonly string[]): string[] => calls.filter((c) => !c.includes(' '))
const statusWrites = (requests: readonly string[]): number => requests.filter((r) => r.startsWith('PATCH') && r.endsWith('/status')).length

t.test('a pass runs its steps in order and writes the status once, at the end', async (t) => {
  const w = world()
  t.same(await w.reconciler.reconcile('team-a', 'app'), {})
  t.same(names(w.calls), ['resolveTemplate', 'renderObjects', 'recordKinds', 'syncObjects', 'refreshOutputs', 'setSynced'])
  t.ok(w.calls.includes('drift.own team-a/app v1/ConfigMap'), 'revert holds the drift watches of what it tracks')
  t.equal(statusWrites(w.requests), 1)
  t.equal(w.requests.length, 1, 'no other request')
})

t.test('a failed render ends the pass before anything is recorded or applied, and comes back when it asks', async (t) => {
  const w = world({ steps: { renderObjects: async () => ({ ok: false, result: { requeueAfterMs: 60_000 } }) } })
  t.same(await w.reconciler.reconcile('team-a', 'app'), { requeueAfterMs: 60_000 })
  t.same(names(w.calls), ['resolveTemplate', 'renderObjects'])
  t.equal(statusWrites(w.requests), 1, 'the failure is reported')
})

t.test('a gate that rejects ends the pass before outputs and Synced', async (t) => {
  const w = world({ steps: { syncObjects: async () => ({ applied: false }) } })
  t.same(await w.reconciler.reconcile('team-a', 'app'), {})
  t.same(names(w.calls), ['resolveTemplate', 'renderObjects', 'recordKinds', 'syncObjects'])
  t.equal(statusWrites(w.requests), 1)
})

t.test('a missing Template releases the watches, renders nothing and looks again later', async (t) => {
  const w = world({ template: { ...template, metadata: { ...template.metadata, name: 'other' } } })
  t.same(await w.reconciler.reconcile('team-a', 'app'), { requeueAfterMs: 30_000 })
  t.same(names(w.calls), ['resolveTemplate'])
  t.same(w.released, ['drift team-a/app', 'sources team-a/app', 'conflicts team-a/app'])
  t.equal(statusWrites(w.requests), 1)
})

t.test('a frozen instance only maintains what it has: no render', async (t) => {
  const off: Template = { ...template, spec: { gotemplate: 'x', sync: { mode: 'off' } } }
  const w = world({ template: off, inst: instance({ firstAppliedAt: '2025-12-31T00:00:00Z' }) })
  await w.reconciler.reconcile('team-a', 'app')
  t.same(names(w.calls), ['resolveTemplate', 'syncFrozen'])
  t.same(w.released, ['drift team-a/app', 'sources team-a/app', 'conflicts team-a/app'])
})

t.test("a status write that fails is the pass's failure, and the pass's Events are still recorded", async (t) => {
  const conflict = new KubeApiError('PATCH', '/status', 409, 'Conflict', 'the object has been modified')
  const w = world({
    writeFails: conflict,
    steps: {
      syncObjects: async (_d, _i, _deps, _m, record) => {
        record.changes.push({ action: 'created', ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', name: 'c' } })
        return { applied: true, clean: true }
      },
    },
  })
  await t.rejects(w.reconciler.reconcile('team-a', 'app'), conflict)
  t.same(w.events, ['Created', 'ReconcileError'])
  t.equal(w.statuses.length, 2, 'the failure is written too, best effort')
})

t.test('the first pass that applied nothing still adds the finalizer, in the same patch as the kinds', async (t) => {
  const bare = instance()
  bare.metadata = { ...bare.metadata, finalizers: [] }
  const w = world({ inst: bare, steps: { renderObjects: async () => ({ ok: false }) } })
  await w.reconciler.reconcile('team-a', 'app')
  t.same(
    w.requests.map((r) => r.split(' ')[0] + (r.endsWith('/status') ? ' status' : ' object')),
    ['PATCH object', 'PATCH status'],
  )
})

const widget = { apiVersion: 'w.example.com/v1', kind: 'Widget' }
const conditionOf = (status: TemplateInstanceStatus | undefined, type: string) => status?.conditions?.find((c) => c.type === type)

t.test(
  'a render naming a kind not served: Applied=False/KindNotFound, nothing recorded or applied, back when its group changes',
  async (t) => {
    const w = world({
      steps: {
        renderObjects: async (_deps, _input, _memory, record) => {
          record.report(kindNotFound([widget]))
          return { ok: false, unserved: [widget] }
        },
      },
    })
    t.same(await w.reconciler.reconcile('team-a', 'app'), { requeueAfterMs: 30_000 }, 'the fallback requeue')
    t.same(names(w.calls), ['resolveTemplate', 'renderObjects'])
    t.ok(
      w.calls.includes('mapper.forget w.example.com') && w.calls.includes('pipeline.forget w.example.com'),
      'the next look asks discovery',
    )
    const status = w.statuses.at(-1)
    t.equal(conditionOf(status, 'Applied')?.reason, 'KindNotFound')
    t.equal(conditionOf(status, 'Ready')?.reason, 'KindNotFound')
    t.same(w.events, ['KindNotFound'])
    t.same(w.reconciler.discoveryChanged('other.example.com'), [], 'another group brings nothing back')
    t.same(w.reconciler.discoveryChanged('w.example.com'), ['team-a/app'])
    t.same(w.reconciler.discoveryChanged('w.example.com'), [], 'once')
  },
)

t.test('a discovery change while the pass looked, or shortly before it looked again, brings it back soon', async (t) => {
  let w: World | undefined
  w = world({
    steps: {
      renderObjects: async (_deps, _input, _memory, record) => {
        w?.reconciler.discoveryChanged('w.example.com')
        record.report(kindNotFound([widget]))
        return { ok: false, unserved: [widget] }
      },
    },
  })
  t.same(await w.reconciler.reconcile('team-a', 'app'), { requeueAfterMs: RECHECK_CHANGED_MS }, 'changed while it looked')
  const again = w
  w = undefined
  t.same(await again.reconciler.reconcile('team-a', 'app'), { requeueAfterMs: RECHECK_RECENT_MS }, 'changed a moment ago')
})

t.test('a kind the dry-run gate finds not served waits the same way, after the kinds were recorded', async (t) => {
  const w = world({ steps: { syncObjects: async () => ({ applied: false, unserved: [widget] }) } })
  t.same(await w.reconciler.reconcile('team-a', 'app'), { requeueAfterMs: 30_000 })
  t.same(names(w.calls), ['resolveTemplate', 'renderObjects', 'recordKinds', 'syncObjects'])
  t.same(w.reconciler.discoveryChanged('w.example.com'), ['team-a/app'])
})

t.test('a kind that goes unserved under a step (its CRD deleted just now) is KindNotFound, not a failed pass', async (t) => {
  const w = world({
    steps: {
      syncObjects: async () => {
        throw new UnknownKindError(widget.apiVersion, widget.kind, KIND_NOT_SERVED)
      },
    },
  })
  t.same(await w.reconciler.reconcile('team-a', 'app'), { requeueAfterMs: 30_000 })
  t.equal(conditionOf(w.statuses.at(-1), 'Applied')?.reason, 'KindNotFound')
})

t.test('a step that throws: Ready=False/ReconcileError names what the pass was doing, then the pass fails', async (t) => {
  const boom = new Error('boom')
  const w = world({
    steps: {
      refreshOutputs: async () => {
        throw boom
      },
    },
  })
  await t.rejects(w.reconciler.reconcile('team-a', 'app'), boom)
  const ready = conditionOf(w.statuses.at(-1), 'Ready')
  t.same(ready && [ready.status, ready.reason, ready.message], [
    'False',
    'ReconcileError',
    'the pass failed while reading outputs: boom; it is retried with backoff',
  ])
  t.same(w.events, ['ReconcileError'])
})

t.test('a status refused as too large is written again without parameter values and outputs, and says so', async (t) => {
  const tooLarge = new KubeApiError(
    'PATCH',
    '/status',
    500,
    'InternalError',
    'rpc error: code = ResourceExhausted desc = trying to send message larger than max (2097322 vs. 2097152)',
  )
  const w = world({
    writeFails: (n: number) => (n === 0 ? tooLarge : undefined),
    steps: {
      renderObjects: async (_deps, _input, _memory, record) => {
        record.set({ type: 'ParametersValid', status: 'True', reason: 'AllParametersResolved', message: '' })
        record.status.resolvedParameters = [{ name: 'a', value: 'x' }, { name: 'b' }]
        return { ok: true, objects: [], values: {} }
      },
      refreshOutputs: async (_input, _live, record) => {
        record.status.outputs = { web: { url: 'http://x' } }
      },
    },
  })
  t.same(await w.reconciler.reconcile('team-a', 'app'), {})
  t.equal(w.statuses.length, 2)
  const [first, second] = w.statuses
  t.same(first?.resolvedParameters, [{ name: 'a', value: 'x' }, { name: 'b' }])
  t.same(second?.resolvedParameters, [{ name: 'a' }, { name: 'b' }], 'the values are left out')
  t.equal(second?.outputs, undefined, 'so are the outputs')
  const params = conditionOf(second, 'ParametersValid')
  t.equal(params?.reason, 'StatusTooLarge')
  t.match(params?.message, 'the API server refused the status as too large (500 InternalError: rpc error: code = ResourceExhausted')
  t.same(
    second?.conditions?.map((c) => c.type),
    first?.conditions?.map((c) => c.type),
    'every condition is written',
  )
  t.equal(conditionOf(second, 'TemplateResolved')?.status, 'True')
})
