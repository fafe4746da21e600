// The reconciler's scrape-time metrics (src/reconciler/metrics.ts):
// leadership and Lease renewals on every replica; instances by condition,
// watches by state and cache state only while the replica leads.

import t from 'tap'
import type { Condition, KubeObject } from '../../src/api/meta.ts'
import type { TemplateInstance } from '../../src/api/templateinstance.ts'
import { WatchRegistry } from '../../src/controller/registry.ts'
import type { Reflector } from '../../src/kube/reflector.ts'
import { conditionCounts, type ManagerView, NO_REASON, OTHER_REASON, observeReconciler } from '../../src/reconciler/metrics.ts'
import type { ObservedCache } from '../../src/telemetry/caches.ts'
import { MetricsRegistry, readValue } from '../../src/telemetry/metrics.ts'

const condition = (type: string, status: string, reason: string): Condition => ({
  type,
  status: status as Condition['status'],
  reason,
  message: '',
  lastTransitionTime: '2026-01-01T00:00:00Z',
})

const instance = (...conditions: Condition[]): TemplateInstance =>
  ({
    apiVersion: 'templates.v2.stakater.com/v2alpha1',
    kind: 'TemplateInstance',
    metadata: { name: 'x' },
    status: { conditions },
  }) as TemplateInstance

t.test('instances are counted by Ready, Synced and Applied, with bounded reasons', async (t) => {
  const counts = conditionCounts([
    instance(condition('Ready', 'True', 'Reconciled'), condition('Synced', 'True', 'SyncActive'), condition('Applied', 'True', 'Success')),
    instance(
      condition('Ready', 'True', 'Reconciled'),
      condition('Synced', 'False', 'DriftConflict'),
      condition('Applied', 'True', 'Success'),
    ),
    instance(condition('Ready', 'False', 'SomethingNew'), condition('Rendered', 'False', 'TemplateExecutionFailed')),
  ])
  const find = (c: string, s: string, r: string): number | undefined =>
    counts.find((x) => x.condition === c && x.status === s && x.reason === r)?.count
  t.equal(find('Ready', 'True', 'Reconciled'), 2)
  t.equal(find('Synced', 'False', 'DriftConflict'), 1)
  t.equal(find('Ready', 'False', OTHER_REASON), 1, 'a reason no release writes is Other')
  t.equal(find('Applied', 'Unknown', NO_REASON), 1, 'a missing condition is Unknown with no reason')
  t.notOk(
    counts.some((x) => x.condition === 'Rendered'),
    'other condition types are not counted',
  )
  t.equal(
    counts.reduce((n, x) => n + x.count, 0),
    9,
    'each instance once per counted condition',
  )
})

interface FakeReflector extends ObservedCache {
  lastError: Error | undefined
  start(): void
  stop(): Promise<void>
  waitForSync(): Promise<void>
}

const fakeCache = (name: string, synced = true, error?: string): FakeReflector => ({
  name,
  hasSynced: () => synced,
  size: () => 2,
  recoveries: { error: error ? 1 : 0 },
  lastError: error ? new Error(error) : undefined,
  start: () => {},
  stop: async () => {},
  waitForSync: async () => {},
})

const registryOf = (caches: Record<string, FakeReflector>): WatchRegistry =>
  new WatchRegistry((key) => caches[key] as unknown as Reflector<KubeObject>)

t.test('every replica reports leadership and renewals; only the leader reports instances, watches and caches', async (t) => {
  const registry = new MetricsRegistry()
  const elector = { leading: false, renewals: { success: 0, failure: 0 }, isLeader: () => elector.leading, observedTransitions: () => 3 }
  let manager: ManagerView | undefined
  const stop = observeReconciler(registry, {
    leaseName: 'template-sync-reconciler',
    elector,
    requests: { total: 4, byVerb: { GET: 3, PATCH: 1 } },
    manager: () => manager,
  })
  t.teardown(stop)
  let text = await registry.render()
  t.match(text, 'leader_election_master_status{name="template-sync-reconciler"} 0')
  t.match(text, 'template_sync_leader_lease_renewals_total{result="failure"} 0', 'renewal results exist from the start')
  t.match(text, 'template_sync_leader_lease_transitions 3')
  t.match(text, 'template_sync_kube_requests_total{verb="GET"} 3')
  t.notMatch(text, 'template_sync_instances{', 'a standby has no instances to count')
  t.notMatch(text, 'template_sync_reconciler_cache_synced{')

  const drift = registryOf({
    'v1/ConfigMap': fakeCache('drift v1/ConfigMap'),
    'apps/v1/Deployment': fakeCache('drift d', true, 'forbidden'),
  })
  drift.setOwnerKeys('team-a/app', ['v1/ConfigMap', 'apps/v1/Deployment'])
  await drift.waitForSync(['v1/ConfigMap', 'apps/v1/Deployment'], 1000)
  const instances = Object.assign(fakeCache('templateinstances'), {
    list: () => [instance(condition('Synced', 'False', 'DriftConflict'))],
  })
  manager = {
    templates: fakeCache('templates'),
    namespaces: fakeCache('namespaces', false),
    instances,
    drift,
    sources: registryOf({}),
    conflicts: registryOf({}),
  }
  elector.leading = true
  elector.renewals.success = 5
  text = await registry.render()
  t.match(text, 'leader_election_master_status{name="template-sync-reconciler"} 1')
  t.equal(
    await readValue(registry.counter({ name: 'template_sync_leader_lease_renewals_total', help: '', labelNames: ['result'] }), {
      result: 'success',
    }),
    5,
  )
  t.match(text, 'template_sync_instances{condition="Synced",status="False",reason="DriftConflict"} 1')
  t.match(text, 'template_sync_reconciler_watches{registry="drift",state="synced"} 1')
  t.match(text, 'template_sync_reconciler_watches{registry="drift",state="failed"} 1', 'a watch retrying after an error is failed')
  t.match(text, 'template_sync_reconciler_watches{registry="conflicts",state="failed"} 0', 'every registry and state from the start')
  t.match(text, 'template_sync_reconciler_cache_synced{cache="namespaces"} 0')
  t.match(text, 'template_sync_reconciler_cache_objects{cache="drift"} 4', 'the drift watches report together')
  t.match(text, 'template_sync_reconciler_reflector_recoveries_total{cache="drift",kind="error"} 1')
  t.notMatch(text, /cache="drift v1/, 'no watch key becomes a label')
  drift.release('team-a/app')
  await drift.stopAll()
})
