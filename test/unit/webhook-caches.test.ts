// The pieces under the webhook caches: what the transforms keep, the
// ignore-compilation cache, the lookups over the stores, the body depth
// check, and the metrics mirror of cache state.

import t from 'tap'
import { slimInstance, slimNamespace, slimScaleTarget, slimTemplate } from '../../src/webhook/transforms.ts'
import { IgnoreCache } from '../../src/drift/ignore-cache.ts'
import { createLookups, scaleTargetKey } from '../../src/webhook/lookups.ts'
import { BodyError, MAX_JSON_DEPTH, nestsDeeperThan, parseJsonBody } from '../../src/webhook/json-body.ts'
import { createWebhookMetrics, observeCaches } from '../../src/webhook/metrics.ts'
import { fullInstance, fullTemplate, MapStore } from '../fixtures/webhook-synthetic.ts'
import { FieldPathError } from '../../src/fieldpath/errors.ts'
import type { Template } from '../../src/api/template.ts'

t.test('transforms keep only what the judge reads', async (t) => {
  const tpl = fullTemplate('platform', 'web', 'strict', ['spec.replicas'])
  const slim = slimTemplate(JSON.parse(JSON.stringify(tpl)) as never)
  t.same(slim, {
    metadata: { name: 'web', namespace: 'platform', uid: tpl.metadata?.uid, resourceVersion: tpl.metadata?.resourceVersion, generation: 3 },
    spec: { sync: { mode: 'strict', ignoreFields: ['spec.replicas'] } },
  })
  t.same(slimTemplate({ metadata: { name: 'x', uid: 'u' }, spec: { gotemplate: 'y' } }).spec, {}, 'no sync: nothing kept')
  t.same(
    slimTemplate({ metadata: { name: 'x' }, spec: { sync: { ignoreFields: 'spec' } } }).spec.sync,
    { ignoreFields: 'spec' },
    'a malformed list is kept for the compiler to report',
  )

  const ti = fullInstance('team', 'app', { namespace: 'platform', name: 'web' })
  const deleting = { ...ti, metadata: { ...ti.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }
  t.same(slimInstance(JSON.parse(JSON.stringify(deleting)) as never), {
    metadata: {
      name: 'app',
      namespace: 'team',
      uid: ti.metadata?.uid,
      resourceVersion: ti.metadata?.resourceVersion,
      deletionTimestamp: '2026-01-01T00:00:00Z',
    },
    spec: { templateRef: { name: 'web', namespace: 'platform' } },
  })

  t.same(
    slimNamespace({
      metadata: { name: 'ns', uid: 'u', labels: { a: 'b' } },
      status: { phase: 'Terminating' },
      spec: { finalizers: ['kubernetes'] },
    }),
    {
      metadata: { name: 'ns', uid: 'u' },
      status: { phase: 'Terminating' },
    },
  )

  const dep = {
    metadata: {
      name: 'web',
      namespace: 'team',
      uid: 'd1',
      labels: {
        app: 'web',
        'templates.v2.stakater.com/instance': 'app',
        'templates.v2.stakater.com/instance-uid': 'i1',
        'templates.v2.stakater.com/sync-mode': 'strict',
      },
      annotations: { 'templates.v2.stakater.com/instance-ref': 'team/app', 'deployment.kubernetes.io/revision': '3' },
      managedFields: [{}],
    },
    spec: { replicas: 3 },
  }
  t.same(slimScaleTarget(dep), {
    metadata: {
      name: 'web',
      namespace: 'team',
      uid: 'd1',
      labels: {
        'templates.v2.stakater.com/instance': 'app',
        'templates.v2.stakater.com/instance-uid': 'i1',
        'templates.v2.stakater.com/sync-mode': 'strict',
      },
      annotations: { 'templates.v2.stakater.com/instance-ref': 'team/app' },
    },
  })
  t.same(slimScaleTarget({ metadata: { name: 'x', labels: { a: 'b' } } }), { metadata: { name: 'x' } }, 'unowned: no labels kept')
})

t.test('the ignore cache compiles once per template generation and keeps failures', async (t) => {
  const errors: unknown[] = []
  const cache = new IgnoreCache({ onCompileError: (_tpl, e) => errors.push(e) })
  const tpl = slimTemplate(fullTemplate('p', 't', 'strict', ['spec.replicas']) as never)
  const a = cache.get(tpl)
  t.equal(cache.get(tpl), a, 'same object for the same generation')
  t.same(a.entries, ['spec.replicas'])
  const next: Template = {
    ...tpl,
    metadata: { ...tpl.metadata, generation: 4 },
    spec: { sync: { mode: 'strict', ignoreFields: ['data'] } },
  }
  const b = cache.get(next)
  t.not(b, a, 'a new generation is compiled again')
  t.same(b.entries, ['data'])
  t.equal(cache.size, 1, 'one entry per template')

  const bad: Template = {
    ...tpl,
    metadata: { ...tpl.metadata, uid: 'bad', generation: 1 },
    spec: { sync: { mode: 'strict', ignoreFields: ['spec..x'] } },
  }
  t.throws(() => cache.get(bad), FieldPathError)
  t.throws(() => cache.get(bad), FieldPathError, 'rethrown from the cache')
  t.equal(errors.length, 1, 'reported once')
  cache.forget('bad')
  cache.forget(tpl.metadata?.uid)
  t.equal(cache.size, 0)
  const noUid: Template = { metadata: { name: 'x' }, spec: { sync: { ignoreFields: ['spec'] } } }
  t.equal(cache.get(noUid), cache.get(noUid), 'objects without a uid are cached by identity')
})

t.test('lookups read the stores only', async (t) => {
  const namespaces = new MapStore<ReturnType<typeof slimNamespace>>()
  namespaces.put(slimNamespace({ metadata: { name: 'live' }, status: { phase: 'Active' } }))
  namespaces.put(slimNamespace({ metadata: { name: 'going' }, status: { phase: 'Terminating' } }))
  namespaces.put(slimNamespace({ metadata: { name: 'marked', deletionTimestamp: '2026-01-01T00:00:00Z' }, status: { phase: 'Active' } }))
  const deployments = new MapStore<ReturnType<typeof slimScaleTarget>>()
  deployments.put(slimScaleTarget({ metadata: { name: 'web', namespace: 'team', uid: 'd1' } }))
  const templates = new MapStore<Template>()
  templates.put(slimTemplate(fullTemplate('p', 't', 'strict') as never))
  const instances = new MapStore<ReturnType<typeof slimInstance>>()
  instances.put(slimInstance(fullInstance('team', 'app', { namespace: 'p', name: 't' }) as never))
  const look = createLookups({
    templates,
    instances,
    namespaces,
    ignore: new IgnoreCache(),
    scaleTargets: new Map([[scaleTargetKey('apps', 'deployments'), deployments]]),
  })
  t.equal(look.isNamespaceTerminating('live'), false)
  t.equal(look.isNamespaceTerminating('going'), true, 'phase Terminating')
  t.equal(look.isNamespaceTerminating('marked'), true, 'deletionTimestamp set')
  t.equal(look.isNamespaceTerminating('unknown'), false, 'an unknown namespace counts as live')
  t.equal(look.getTemplate('p', 't')?.metadata?.name, 't')
  t.equal(look.getInstance('team', 'app')?.spec.templateRef.name, 't')
  t.equal(look.getInstance('team', 'nope'), undefined)
  t.equal(look.getScaleTarget?.({ group: 'apps', version: 'v1', resource: 'deployments' }, 'team', 'web')?.metadata?.uid, 'd1')
  t.equal(
    look.getScaleTarget?.({ group: 'apps', version: 'v1', resource: 'statefulsets' }, 'team', 'web'),
    undefined,
    'kinds without a cache',
  )
})

t.test('nesting depth is measured outside strings', async (t) => {
  const deep = (n: number): string => '['.repeat(n) + ']'.repeat(n)
  t.equal(nestsDeeperThan(deep(5), 5), false)
  t.equal(nestsDeeperThan(deep(6), 5), true)
  t.equal(nestsDeeperThan(`{"a":"${'['.repeat(50)}"}`, 5), false, 'brackets in strings do not count')
  t.equal(nestsDeeperThan(`{"a":"\\"[[[[[[[[[["}`, 5), false, 'an escaped quote does not end the string')
  t.equal(nestsDeeperThan(`{"a":"\\\\"}${'['.repeat(8)}`, 5), true, 'an escaped backslash does end it')
  t.equal(nestsDeeperThan(`{"a":[[{"b":[1]}]],"c":{"d":{"e":[]}}}`, 5), false)
  t.equal(nestsDeeperThan(`{"a":[[{"b":[1]}]]}`, 3), true)
  t.equal(nestsDeeperThan('"unterminated [[[[[[', 2), false, 'malformed text is left to the parser')
  t.equal(nestsDeeperThan('['.repeat(11), 5), false, 'too short to close six levels: not scanned, left to the parser')
  t.equal(nestsDeeperThan('['.repeat(12), 5), true, 'long enough: scanned')
  t.equal(nestsDeeperThan(deep(MAX_JSON_DEPTH), MAX_JSON_DEPTH), false, 'the limit itself is accepted')
  t.same(parseJsonBody('{"a":[1,{"b":null}]}'), { a: [1, { b: null }] })
  const problemOf = (text: string): string | undefined => {
    try {
      parseJsonBody(text)
      return undefined
    } catch (e) {
      return e instanceof BodyError ? e.problem : 'other'
    }
  }
  t.equal(problemOf('  '), 'EmptyBody')
  t.equal(problemOf(deep(MAX_JSON_DEPTH + 1)), 'TooDeep')
  t.equal(
    problemOf(`${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH)}`),
    'InvalidJSON',
    'one closing short: too short to scan, and refused by the parser',
  )
  t.equal(
    problemOf(`${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`),
    'TooDeep',
    'the shortest valid body one level too deep is scanned',
  )
  t.same(parseJsonBody(`${' '.repeat(2 * MAX_JSON_DEPTH)}${deep(3)}`), JSON.parse(deep(3)), 'a long, shallow body passes the scan')
  t.equal(problemOf('{"secret":"hunter2'), 'InvalidJSON')
  try {
    parseJsonBody('{"secret": hunter2}')
  } catch (e) {
    t.notMatch((e as Error).message, 'hunter2', 'the error never quotes the body')
  }
  const parsed = parseJsonBody('{"__proto__":{"x":1}}') as Record<string, unknown>
  t.ok(Object.hasOwn(parsed, '__proto__'), '__proto__ is an own key')
  t.equal(({} as Record<string, unknown>).x, undefined, 'no prototype was touched')
})

t.test('cache state is mirrored into metrics at scrape time', async (t) => {
  const metrics = createWebhookMetrics()
  const cache = {
    name: 'templates',
    synced: false,
    n: 0,
    recoveries: { 'relist-gone': 0, error: 0 } as Record<string, number>,
    hasSynced(): boolean {
      return this.synced
    },
    size(): number {
      return this.n
    },
  }
  const stop = observeCaches(metrics, [cache])
  let text = await metrics.registry.render()
  t.match(text, 'template_sync_webhook_cache_synced{cache="templates"} 0')
  t.match(text, 'template_sync_webhook_reflector_recoveries_total{cache="templates",kind="error"} 0')
  cache.synced = true
  cache.n = 7
  cache.recoveries.error = 2
  cache.recoveries['relist-gone'] = 1
  text = await metrics.registry.render()
  t.match(text, 'template_sync_webhook_cache_synced{cache="templates"} 1')
  t.match(text, 'template_sync_webhook_cache_objects{cache="templates"} 7')
  t.match(text, 'template_sync_webhook_reflector_recoveries_total{cache="templates",kind="error"} 2')
  cache.recoveries.error = 3
  text = await metrics.registry.render()
  t.match(text, 'template_sync_webhook_reflector_recoveries_total{cache="templates",kind="error"} 3', 'counts advance by the difference')
  t.match(text, 'template_sync_webhook_reflector_recoveries_total{cache="templates",kind="relist-gone"} 1')
  stop()
})
