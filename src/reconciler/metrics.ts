// The reconciler process's own metrics, read at scrape time: leadership and
// Lease renewals and API requests by verb on every replica; while a replica
// leads, also the state of its caches and watches and its TemplateInstances
// counted by condition. Labels are bounded: condition types, statuses and
// reasons come from fixed lists, watch registries and states too; no object
// name is ever a label.

import { InstanceConditionType, Reason } from '../api/conditions.ts'
import type { TemplateInstance } from '../api/templateinstance.ts'
import type { WatchRegistry } from '../controller/registry.ts'
import type { RequestCounter } from '../kube/client.ts'
import { type LabelledCache, type ObservedCache, observeCacheState } from '../telemetry/caches.ts'
import type { MetricsRegistry } from '../telemetry/metrics.ts'

/** The conditions instances are counted by: whether they are ready, in sync, and applied. */
export const COUNTED_CONDITIONS = Object.freeze([InstanceConditionType.Ready, InstanceConditionType.Synced, InstanceConditionType.Applied])
const STATUSES: ReadonlySet<string> = new Set(['True', 'False', 'Unknown'])
const REASONS: ReadonlySet<string> = new Set(Object.values(Reason))
/** The reason label of an instance without the condition, and of a reason no release of ours writes. */
export const NO_REASON = 'None'
export const OTHER_REASON = 'Other'

export const WATCH_REGISTRIES = Object.freeze(['drift', 'sources', 'conflicts'] as const)
export type WatchRegistryName = (typeof WATCH_REGISTRIES)[number]
export const WATCH_STATES = Object.freeze(['synced', 'starting', 'failed'] as const)

export interface LeaderView {
  isLeader(): boolean
  readonly renewals: Readonly<{ success: number; failure: number }>
  observedTransitions(): number | undefined
}

/** What the leader's Manager shows to metrics (the Manager has all of it). */
export interface ManagerView {
  readonly templates: ObservedCache
  readonly namespaces: ObservedCache
  readonly instances: ObservedCache & { list(): readonly TemplateInstance[] }
  readonly drift: WatchRegistry
  readonly sources: WatchRegistry
  readonly conflicts: WatchRegistry
}

export interface ReconcilerObserved {
  /** The leader-election Lease, the `name` label of leader_election_master_status. */
  readonly leaseName: string
  readonly elector: LeaderView
  readonly requests: Readonly<RequestCounter>
  /** The Manager while this replica leads. */
  manager(): ManagerView | undefined
}

export interface ConditionCount {
  readonly condition: string
  readonly status: string
  readonly reason: string
  readonly count: number
}

/** Instances by condition type, status and reason (an instance without the condition counts as Unknown/None). */
export function conditionCounts(instances: Iterable<TemplateInstance>): ConditionCount[] {
  const counts = new Map<string, { condition: string; status: string; reason: string; count: number }>()
  for (const i of instances) {
    const conditions = i.status?.conditions ?? []
    for (const condition of COUNTED_CONDITIONS) {
      const c = conditions.find((x) => x.type === condition)
      const status = c && STATUSES.has(c.status) ? c.status : 'Unknown'
      const reason = c === undefined || !c.reason ? NO_REASON : REASONS.has(c.reason) ? c.reason : OTHER_REASON
      const key = `${condition}\u0000${status}\u0000${reason}`
      const entry = counts.get(key)
      if (entry) entry.count++
      else counts.set(key, { condition, status, reason, count: 1 })
    }
  }
  return [...counts.values()]
}

/** The state a watch of a registry reports under: running and synced, starting, or failing. */
function watchState(registry: WatchRegistry, key: string): (typeof WATCH_STATES)[number] {
  const s = registry.state(key)
  return s.error !== undefined ? 'failed' : s.synced ? 'synced' : 'starting'
}

function* cachesOf(m: ManagerView): Iterable<LabelledCache> {
  yield ['templates', m.templates]
  yield ['templateinstances', m.instances]
  yield ['namespaces', m.namespaces]
  for (const name of WATCH_REGISTRIES) {
    const registry = m[name]
    for (const key of registry.keys()) {
      const r = registry.get(key)
      if (r !== undefined) yield [name, r]
    }
  }
}

function reconcilerInstruments(registry: MetricsRegistry) {
  const leader = registry.gauge({
    name: 'leader_election_master_status',
    help: '1 while this replica holds the leader-election Lease, else 0.',
    labelNames: ['name'],
  })
  const renewals = registry.counter({
    name: 'template_sync_leader_lease_renewals_total',
    help: 'Renewals of the leader-election Lease by this replica while leading, by result (success, failure).',
    labelNames: ['result'],
  })
  const transitions = registry.gauge({
    name: 'template_sync_leader_lease_transitions',
    help: 'spec.leaseTransitions of the leader-election Lease as this replica last read it: how often the leader changed.',
  })
  const requests = registry.counter({
    name: 'template_sync_kube_requests_total',
    help: 'Kubernetes API requests made by the reconciler, by verb (dry-runs and watches apart)',
    labelNames: ['verb'],
  })
  const instances = registry.gauge({
    name: 'template_sync_instances',
    help: 'TemplateInstances by condition (Ready, Synced, Applied), status and reason; reported by the leader.',
    labelNames: ['condition', 'status', 'reason'],
  })
  const watches = registry.gauge({
    name: 'template_sync_reconciler_watches',
    help: 'Shared watches by registry (drift, sources, conflicts) and state (synced, starting, failed); reported by the leader.',
    labelNames: ['registry', 'state'],
  })
  const caches = {
    synced: registry.gauge({
      name: 'template_sync_reconciler_cache_synced',
      help: '1 once every cache of the label has completed its first list; reported by the leader.',
      labelNames: ['cache'],
    }),
    objects: registry.gauge({
      name: 'template_sync_reconciler_cache_objects',
      help: 'Objects held in the caches of the label; reported by the leader.',
      labelNames: ['cache'],
    }),
    recoveries: registry.counter({
      name: 'template_sync_reconciler_reflector_recoveries_total',
      help: 'List/watch recoveries by cache and kind (relist-gone, reconnect, stall, error).',
      labelNames: ['cache', 'kind'],
    }),
  }
  return { leader, renewals, transitions, requests, instances, watches, caches }
}

/** Registers the reconciler's metrics in registry; returns the unregister function. */
export function observeReconciler(registry: MetricsRegistry, what: ReconcilerObserved): () => void {
  const { leader, renewals, transitions, requests, instances, watches, caches } = reconcilerInstruments(registry)
  const unobserveCaches = observeCacheState(registry, caches, () => {
    const m = what.manager()
    return m === undefined ? [] : cachesOf(m)
  })

  // Running totals elsewhere; the counters advance by what is new since the last scrape.
  const seenVerbs: Record<string, number> = {}
  const seenRenewals = { success: 0, failure: 0 }
  renewals.inc({ result: 'success' }, 0)
  renewals.inc({ result: 'failure' }, 0)
  const unobserve = registry.onCollect(() => {
    leader.set({ name: what.leaseName }, what.elector.isLeader() ? 1 : 0)
    for (const result of ['success', 'failure'] as const) {
      const total = what.elector.renewals[result]
      if (total > seenRenewals[result]) renewals.inc({ result }, total - seenRenewals[result])
      seenRenewals[result] = total
    }
    const n = what.elector.observedTransitions()
    if (n !== undefined) transitions.set(n)
    for (const [verb, total] of Object.entries(what.requests.byVerb)) {
      requests.inc({ verb }, total - (seenVerbs[verb] ?? 0))
      seenVerbs[verb] = total
    }

    instances.reset()
    watches.reset()
    const m = what.manager()
    if (m === undefined) return
    for (const { count, ...labels } of conditionCounts(m.instances.list())) instances.set(labels, count)
    for (const name of WATCH_REGISTRIES) {
      const byState = new Map<string, number>(WATCH_STATES.map((s) => [s, 0]))
      for (const key of m[name].keys()) {
        const state = watchState(m[name], key)
        byState.set(state, (byState.get(state) ?? 0) + 1)
      }
      for (const [state, count] of byState) watches.set({ registry: name, state }, count)
    }
  })
  return () => {
    unobserve()
    unobserveCaches()
  }
}
