// Wires the reconciler's caches, shared watches, queues and workers together.
// Event handlers only enqueue keys; all work happens in the reconcilers, one
// worker per key at a time.
// No handler looks at every instance: instances are indexed by the Template
// they use and (in the cache's own index) by namespace, and rendered objects
// by the UID of their instance, so an event costs what it touches. Keys are
// queued with a priority (queue.ts): drift of a rendered object first, changes
// of an instance next, fan-outs of Template, Namespace and source changes,
// initial lists and resyncs last.

import type { Logger } from 'pino'
import type { Template } from '../api/template.ts'
import type { TemplateInstance } from '../api/templateinstance.ts'
import { LABEL_INSTANCE_UID } from '../api/names.ts'
import { type ComponentTable, DEFAULT_COMPONENTS } from '../api/writers.ts'
import { type GrantRefusal, grantRefusalOf, sameTemplateValidity } from '../api/conditions.ts'
import type { KubeClient } from '../kube/client.ts'
import { RestMapper } from '../kube/discovery.ts'
import { ObjectClient } from '../kube/objects.ts'
import { deletionChanged, generationChanged, labelsChanged, specOrMetadataChanged } from '../kube/predicates.ts'
import { namespacedKey, parseNamespacedKey } from '../api/identity.ts'
import type { KubeObject } from '../api/meta.ts'
import type { Reflector } from '../kube/reflector.ts'
import { PRIORITY, WorkQueue } from './queue.ts'
import { runWorkers } from './workers.ts'
import { createChangeMetrics, createReconcileMetrics } from './metrics.ts'
import { logTo } from '../telemetry/log.ts'
import { MetricsRegistry } from '../telemetry/metrics.ts'
import type { WatchRegistry } from './registry.ts'
import { IgnoreCache } from '../drift/ignore-cache.ts'
import { InstanceReconciler, type EventSink, type InstanceReconcilerOptions } from './instance.ts'
import { TemplateReconciler } from './template.ts'
import type { RenderPipeline, TemplateValidator } from './pipeline.ts'
import { recordedKinds } from '../api/templateinstance-kinds.ts'
import { ORPHAN_OWNER, OrphanReleaser } from './orphans.ts'
import { INDEX_TEMPLATE, templatesOf, templatesToRecheck } from './indexes.ts'
import { instancePath } from './status.ts'
import { conflictWatches, driftWatches, type NamespaceMeta, primaryCaches, sourceWatches } from './watches.ts'
import { DiscoveryWatch } from './discovery-watch.ts'

export interface ManagerOptions {
  client: KubeClient
  pipeline: RenderPipeline
  validator: TemplateValidator
  events: EventSink
  log: Logger
  registry?: MetricsRegistry
  workers?: number
  instanceOptions?: Partial<InstanceReconcilerOptions>
  /** Bounded periodic resync of every instance (safety net, not the mechanism). */
  resyncMs?: number
  /** At start, how long instance workers wait for the drift caches of the kinds the instances already track. */
  driftSyncWaitMs?: number
  /** The cluster's components (docs/writers.md); DEFAULT_COMPONENTS when not given. */
  components?: ComponentTable
  now?: () => Date
}

/**
 * The drift-watch owner that holds, at start, the kinds the instances already
 * track, until each of those instances had its first pass (and took its own
 * share): an orphan check that found nothing must not stop a watch the first
 * passes are about to read from.
 */
const FIRST_PASSES = 'first-passes'

const keyOf = (ns: string | undefined, name: string | undefined): string => namespacedKey(ns, name ?? '')

/** A Template update its instances act on: a new spec, a deletion, or a change of its validity (Ready follows it). */
function templateChangedForInstances(t: Template, old: Template): boolean {
  return generationChanged(t, old) || deletionChanged(t, old) || !sameTemplateValidity(old, t)
}
const splitKey = (k: string): [string, string] => {
  const { namespace = '', name } = parseNamespacedKey(k)
  return [namespace, name]
}

export class Manager {
  readonly templates: Reflector<Template>
  readonly instances: Reflector<TemplateInstance>
  readonly namespaces: Reflector<NamespaceMeta>
  readonly drift: WatchRegistry
  readonly sources: WatchRegistry
  /** Single objects that instances are in an ownership conflict with, keyed by objectKey(). */
  readonly conflicts: WatchRegistry
  readonly orphans: OrphanReleaser
  /** CRDs and APIServices: a change brings back the instances that wait for a kind of that group. */
  readonly discovery: DiscoveryWatch
  readonly instanceQueue: WorkQueue<string>
  readonly templateQueue: WorkQueue<string>
  readonly orphanQueue: WorkQueue<string>
  readonly instanceReconciler: InstanceReconciler
  readonly templateReconciler: TemplateReconciler
  readonly registry: MetricsRegistry
  /** Compiled ignoreFields per Template, for the instance reconciler. */
  readonly ignore = new IgnoreCache()
  private readonly opts: ManagerOptions
  private readonly uidToKey = new Map<string, string>()
  private readonly stop = new AbortController()
  private resyncTimer: NodeJS.Timeout | undefined
  private running: Promise<unknown> | undefined

  constructor(opts: ManagerOptions) {
    this.opts = opts
    const { client, log } = opts
    const now = opts.now ?? (() => new Date())
    this.registry = opts.registry ?? new MetricsRegistry()
    const mapper = new RestMapper(client)
    const objects = new ObjectClient(client, mapper)
    const components = opts.components ?? DEFAULT_COMPONENTS
    const onRecover = (what: string, detail: string): void => log.warn({ recovery: what }, detail)
    const watchDeps = { client, mapper, onRecover, components }
    ;({ templates: this.templates, instances: this.instances, namespaces: this.namespaces } = primaryCaches(watchDeps))
    this.instanceQueue = new WorkQueue<string>({ name: 'templateinstances', registry: this.registry })
    this.templateQueue = new WorkQueue<string>({ name: 'templates', registry: this.registry })
    this.orphanQueue = new WorkQueue<string>({ name: 'orphans', registry: this.registry })
    this.drift = driftWatches(watchDeps, {
      changed: (kind, o, synced) => this.renderedObjectChanged(kind, o, synced),
      deleted: (kind) => this.orphans.settle(kind),
      synced: (kind) => {
        // Once synced, every owner must look again: Synced can turn True.
        for (const owner of this.drift.ownersOf(kind))
          if (owner !== ORPHAN_OWNER && owner !== FIRST_PASSES) this.instanceQueue.add(owner, PRIORITY.low)
        this.orphans.settle(kind)
      },
    })
    this.sources = sourceWatches(watchDeps, (key) => {
      for (const owner of this.sources.ownersOf(key)) {
        this.instanceReconciler.sourceChanged(owner)
        this.instanceQueue.add(owner, PRIORITY.low)
      }
    })
    this.conflicts = conflictWatches(watchDeps, (key) => {
      for (const owner of this.conflicts.ownersOf(key)) this.instanceQueue.add(owner)
    })
    this.orphans = new OrphanReleaser({
      drift: this.drift,
      objects,
      queue: this.orphanQueue,
      knownUid: (uid) => this.uidToKey.has(uid),
      liveInstanceUid: async (namespace, name) =>
        (await client.getOrUndefined<TemplateInstance>(instancePath(namespace, name)))?.metadata?.uid,
      events: opts.events,
      log,
    })
    this.instanceReconciler = new InstanceReconciler({
      client,
      objects,
      getTemplate: (ns, name) => this.templates.get(ns, name),
      getInstance: (ns, name) => this.instances.get(ns, name),
      getNamespaceLabels: (name) => {
        const n = this.namespaces.get(undefined, name)
        return n === undefined ? undefined : (n.metadata?.labels ?? {})
      },
      drift: this.drift,
      sources: this.sources,
      conflicts: this.conflicts,
      pipeline: opts.pipeline,
      ignore: this.ignore,
      events: opts.events,
      log,
      now,
      components,
      metrics: createChangeMetrics(this.registry, components),
      ...(opts.instanceOptions ? { options: opts.instanceOptions } : {}),
    })
    this.discovery = new DiscoveryWatch({ client, log, onRecover, changed: (group) => this.discoveryChanged(group) })
    this.templateReconciler = new TemplateReconciler({
      client,
      getTemplate: (ns, name) => this.templates.get(ns, name),
      instancesUsing: (ns, name) => this.instancesUsing(ns, name),
      grantRefusals: (ns, name) => this.grantRefusals(ns, name),
      validator: opts.validator,
      events: opts.events,
      now,
    })
    this.routeEvents()
  }

  /** A rendered object changed: its owner looks again (a correction first), or the orphan releaser does. */
  private renderedObjectChanged(kind: string, o: KubeObject, synced: boolean): void {
    const uid = o.metadata?.labels?.[LABEL_INSTANCE_UID]
    const key = uid ? this.uidToKey.get(uid) : undefined
    // The initial list shows what is, not what changed: no correction is due because of it.
    if (key) this.instanceQueue.add(key, synced ? PRIORITY.drift : PRIORITY.low)
    else this.orphans.observe(kind, o)
  }

  /** Discovery of an API group changed: the instances that waited for one of its kinds look again, at once. */
  private discoveryChanged(group: string): void {
    const waiting = this.instanceReconciler.discoveryChanged(group)
    this.opts.log.debug({ group, instances: waiting.length }, 'API discovery changed')
    for (const key of waiting) this.instanceQueue.add(key)
  }

  /** Which events of the primary caches queue what; the filters are named predicates (kube/predicates.ts). */
  private routeEvents(): void {
    this.instances.on('add', (i) => this.onInstance(i, this.instances.hasSynced() ? PRIORITY.normal : PRIORITY.low))
    this.instances.on('update', (i, old) => {
      for (const t of templatesToRecheck(i, old)) this.templateQueue.add(t)
      // Status-only updates (our own writes) carry nothing new to act on.
      if (specOrMetadataChanged(i, old)) this.onInstance(i, PRIORITY.normal)
    })
    this.instances.on('delete', (i) => {
      if (i.metadata?.uid) this.uidToKey.delete(i.metadata.uid)
      this.instanceQueue.add(keyOf(i.metadata?.namespace, i.metadata?.name))
      // Gone without our cleanup (finalizer removed by hand), it may have left objects behind.
      this.orphans.hold(recordedKinds(i))
      // A Template waiting for its last user to go may now be released.
      for (const t of templatesOf(i)) this.templateQueue.add(t)
    })
    const onTemplate = (t: Template, old?: Template): void => {
      this.templateQueue.add(keyOf(t.metadata?.namespace, t.metadata?.name))
      // Instances re-derive Ready when the Template's validity changes (a status-only update).
      if (old === undefined || templateChangedForInstances(t, old)) this.fanOut(this.instancesUsingTemplate(t))
    }
    this.templates.on('add', (t) => onTemplate(t)).on('update', (t, old) => onTemplate(t, old))
    this.templates.on('delete', (t) => {
      this.ignore.forget(t.metadata?.uid)
      this.fanOut(this.instancesUsingTemplate(t))
    })
    this.namespaces.on('update', (n, old) => {
      if (labelsChanged(n, old))
        this.fanOut(this.instances.listNamespace(n.metadata?.name ?? '').map((i) => keyOf(i.metadata?.namespace, i.metadata?.name)))
    })
  }

  private instancesUsingTemplate(t: Template): string[] {
    return this.instancesUsing(t.metadata?.namespace ?? '', t.metadata?.name ?? '')
  }

  /** Instances whose templateRef names this Template and that are refused for reaching beyond their namespace. */
  private grantRefusals(namespace: string, name: string): GrantRefusal[] {
    return this.instances
      .byIndex(INDEX_TEMPLATE, keyOf(namespace, name))
      .filter((i) => i.spec?.templateRef?.namespace === namespace && i.spec.templateRef.name === name)
      .flatMap((i) => grantRefusalOf(i) ?? [])
  }

  /** Queues instances a shared input of theirs changed for, behind corrections and changes of single instances. */
  private fanOut(keys: readonly string[]): void {
    for (const k of keys) this.instanceQueue.add(k, PRIORITY.low)
  }

  private onInstance(i: TemplateInstance, priority: number): void {
    if (i.metadata?.uid) this.uidToKey.set(i.metadata.uid, keyOf(i.metadata.namespace, i.metadata.name))
    this.instanceQueue.add(keyOf(i.metadata?.namespace, i.metadata?.name), priority)
    const ref = i.spec?.templateRef
    if (ref && i.metadata?.deletionTimestamp) this.templateQueue.add(keyOf(ref.namespace, ref.name))
  }

  /** Keys of the cached instances whose templateRef names this Template (from the index, not a scan). */
  instancesUsing(namespace: string, name: string): string[] {
    return this.instances.byIndex(INDEX_TEMPLATE, keyOf(namespace, name)).map((i) => keyOf(i.metadata?.namespace, i.metadata?.name))
  }

  /** Starts caches, waits for their first sync, then runs workers until stopped. */
  async start(): Promise<void> {
    const signal = this.stop.signal
    this.namespaces.start()
    this.templates.start()
    this.instances.start()
    this.discovery.start()
    await Promise.all([this.namespaces.waitForSync(signal), this.templates.waitForSync(signal), this.instances.waitForSync(signal)])
    this.opts.log.info({ templates: this.templates.size(), instances: this.instances.size() }, 'caches synced; starting workers')
    // Instances deleted while no reconciler ran may have left objects of these kinds behind.
    const tracked = new Set(this.instances.list().flatMap((i) => recordedKinds(i)))
    this.orphans.hold(tracked)
    // The first passes after a restart read live objects from these caches
    // (one list per kind), not one GET per object from a cache still starting
    // (docs/restart-without-dry-runs.md).
    const firstPasses = new Set(this.instances.list().map((i) => keyOf(i.metadata?.namespace, i.metadata?.name)))
    if (firstPasses.size > 0) this.drift.setOwnerKeys(FIRST_PASSES, tracked)
    const passed = (key: string): void => {
      if (firstPasses.delete(key) && firstPasses.size === 0) this.drift.release(FIRST_PASSES)
    }
    const driftSynced = this.drift.waitForSync(tracked, this.opts.driftSyncWaitMs ?? 60_000, signal)
    const resync = this.opts.resyncMs ?? 10 * 60_000
    this.resyncTimer = setInterval(() => {
      // Spread the resync so it never becomes a burst.
      const keys = this.instances.list().map((i) => keyOf(i.metadata?.namespace, i.metadata?.name))
      for (const [idx, k] of keys.entries())
        this.instanceQueue.addAfter(k, Math.floor((idx / Math.max(1, keys.length)) * resync * 0.5), PRIORITY.low)
    }, resync)
    this.resyncTimer.unref()
    const log = logTo(this.opts.log)
    const metrics = createReconcileMetrics(this.registry)
    const n = this.opts.workers ?? 4
    this.running = Promise.all([
      driftSynced.then(() =>
        runWorkers(
          this.instanceQueue,
          n,
          async (key) => {
            const [ns, name] = splitKey(key)
            try {
              return await this.instanceReconciler.reconcile(ns, name)
            } finally {
              passed(key)
            }
          },
          { log, signal, metrics },
        ),
      ),
      runWorkers(
        this.templateQueue,
        1,
        (key) => {
          const [ns, name] = splitKey(key)
          return this.templateReconciler.reconcile(ns, name)
        },
        { log, signal, metrics },
      ),
      runWorkers(this.orphanQueue, 1, (key) => this.orphans.release(key), { log, signal, metrics }),
    ])
  }

  /** True once the three primary caches have synced. */
  ready(): boolean {
    return this.namespaces.hasSynced() && this.templates.hasSynced() && this.instances.hasSynced()
  }

  async shutdown(): Promise<void> {
    this.stop.abort()
    if (this.resyncTimer) clearInterval(this.resyncTimer)
    this.instanceQueue.shutDown()
    this.templateQueue.shutDown()
    this.orphanQueue.shutDown()
    await this.running
    await Promise.all([
      this.templates.stop(),
      this.instances.stop(),
      this.namespaces.stop(),
      this.drift.stopAll(),
      this.sources.stopAll(),
      this.conflicts.stopAll(),
      this.discovery.stop(),
    ])
  }
}
