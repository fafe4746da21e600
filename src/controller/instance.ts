// The TemplateInstance reconcile: a thin driver over named steps
// (./instance/), in the order they run. Each step takes what it needs and
// returns data; conditions, change-set entries and Events go on the
// InstanceRecord, the one owner of every write to the instance, which
// flushes the status once at the end, also when a step threw (Ready=False
// naming the step). A render of a kind the API server does not serve waits
// for a discovery change of its group (KindWaiters), or the fallback
// requeue. docs/reconcile.md walks through it.

import { namespacedKey } from '../api/identity.ts'
import { syncModeOf } from '../api/template.ts'
import type { Template } from '../api/template.ts'
import type { TemplateInstance } from '../api/templateinstance.ts'
import type { FightOptions } from '../apply/fight.ts'
import { desiredObject } from '../apply/plan.ts'
import { groupOf } from '../api/identity.ts'
import { UnknownKindError } from '../kube/discovery.ts'
import { errorMessage, KubeApiError } from '../kube/errors.ts'
import { NO_REDACTION, type Redact } from '../render/redact.ts'
import { finalizeInstance } from './instance/finalize.ts'
import { syncFrozen } from './instance/freeze.ts'
import { recordKinds } from './instance/kinds.ts'
import { type InstanceMemory, newMemory } from './instance/memory.ts'
import { syncObjects } from './instance/objects.ts'
import { refreshOutputs } from './instance/outputs.ts'
import { InstanceRecord } from './instance/record.ts'
import { renderObjects } from './instance/render.ts'
import { namespacePolicy, resolveTemplate } from './instance/resolve-template.ts'
import { setSynced } from './instance/synced.ts'
import {
  DEFAULT_INSTANCE_OPTIONS,
  type InstanceDeps,
  type InstanceReconcilerOptions,
  type InstanceSteps,
  type ReconcileResult,
} from './instance/types.ts'
import { KindWaiters, recheckAfterMs } from './kind-waiters.ts'
import { LiveObjects } from './live.ts'
import type { KindRef } from './pipeline.ts'
import { kindNotFound, unservedKindOf } from './report.ts'

export {
  DEFAULT_INSTANCE_OPTIONS,
  type EventSink,
  type InstanceDeps,
  type InstanceReconcilerOptions,
  type InstanceSteps,
  type ReconcileResult,
} from './instance/types.ts'
export { sourceWatchKeys } from './instance/render.ts'

const STEPS: InstanceSteps = { resolveTemplate, syncFrozen, renderObjects, recordKinds, syncObjects, refreshOutputs, setSynced }

export class InstanceReconciler {
  private readonly deps: InstanceDeps
  private readonly opts: InstanceReconcilerOptions
  private readonly memory = new Map<string, InstanceMemory>()
  private readonly fight: FightOptions
  private readonly live: LiveObjects
  private readonly steps: InstanceSteps
  /** Instances whose render names a kind not served yet, by API group. */
  private readonly waiters = new KindWaiters()

  constructor(deps: InstanceDeps) {
    this.deps = deps
    this.opts = { ...DEFAULT_INSTANCE_OPTIONS, ...(deps.options ?? {}) }
    this.fight = {
      windowMs: this.opts.conflictWindowMs,
      threshold: this.opts.conflictThreshold,
      backoffMs: this.opts.correctionBackoffMs,
      backoffMaxMs: this.opts.correctionBackoffMaxMs,
      quietMs: this.opts.correctionQuietMs,
    }
    this.live = new LiveObjects({ objects: deps.objects, drift: deps.drift, conflicts: deps.conflicts })
    this.steps = { ...STEPS, ...(deps.steps ?? {}) }
  }

  /** Called by the manager when a parameter source of the instance changed. */
  sourceChanged(instanceKey: string): void {
    const m = this.memory.get(instanceKey)
    if (m) m.sourceEpoch++
  }

  forget(instanceKey: string): void {
    this.memory.delete(instanceKey)
    this.waiters.release(instanceKey)
    this.releaseWatches(instanceKey)
  }

  /**
   * Called by the manager when discovery of an API group changed (a CRD or an
   * APIService added, changed or deleted): what the pass knows of the group's
   * kinds is dropped, and the keys of the instances that waited for one of
   * them are returned, to be queued.
   */
  discoveryChanged(group: string): string[] {
    this.forgetDiscovery(group)
    return this.waiters.changed(group, this.deps.now().getTime())
  }

  private forgetDiscovery(group: string): void {
    this.deps.objects.mapper.invalidateGroup(group)
    this.deps.pipeline.discoveryChanged(group)
  }

  private releaseWatches(instanceKey: string): void {
    this.deps.drift.release(instanceKey)
    this.deps.sources.release(instanceKey)
    this.deps.conflicts.release(instanceKey)
  }

  private mem(key: string, uid: string): InstanceMemory {
    let m = this.memory.get(key)
    if (!m || m.uid !== uid) {
      m = newMemory(uid)
      this.memory.set(key, m)
    }
    return m
  }

  async reconcile(namespace: string, name: string): Promise<ReconcileResult> {
    const key = namespacedKey(namespace, name)
    const inst = this.deps.getInstance(namespace, name)
    if (!inst?.metadata?.uid) {
      this.forget(key)
      return {}
    }
    if (inst.metadata.deletionTimestamp) {
      this.releaseWatches(key)
      const { done, ...result } = await finalizeInstance({ ...this.deps, live: this.live }, inst)
      if (done) this.memory.delete(key)
      return result
    }
    const memory = this.mem(key, inst.metadata.uid)
    const { client, events, log, metrics } = this.deps
    const record = new InstanceRecord(
      { client, events, log, fight: this.fight, ...(metrics ? { metrics } : {}) },
      inst,
      memory.record,
      this.deps.now(),
    )
    const mark = this.waiters.mark()
    try {
      return await this.pass(key, inst, memory, record, mark)
    } catch (e) {
      // A kind that went unserved after the render looked (a CRD deleted just now) waits like one the render found.
      const unserved = e instanceof UnknownKindError ? unservedKindOf(e, e) : undefined
      if (unserved) {
        record.report(kindNotFound([unserved]))
        const ref = inst.spec.templateRef
        return await this.awaitKinds(key, [unserved], mark, record, this.deps.getTemplate(ref.namespace, ref.name))
      }
      await record
        .flushFailure(e)
        .catch((w: unknown) =>
          log.warn({ instance: key, err: record.redact(errorMessage(w)) }, 'could not record the failed pass on the instance'),
        )
      throw redactError(e, record.redact)
    } finally {
      // Normally recorded before the status write; here also when the pass failed half-way.
      record.emitEvents()
    }
  }

  /**
   * The end of a pass that met kinds the API server does not serve (already
   * reported on the record): it comes back when discovery of their groups
   * changes, soon when one changed lately, at the latest after
   * kindNotFoundRequeueMs (kind-waiters.ts).
   */
  private awaitKinds(
    key: string,
    kinds: readonly KindRef[],
    mark: number,
    record: InstanceRecord,
    template: Template | undefined,
  ): Promise<ReconcileResult> {
    const groups = [...new Set(kinds.map((k) => groupOf(k.apiVersion)))]
    // The next look asks discovery again, never a cached answer.
    for (const g of groups) this.forgetDiscovery(g)
    const seen = this.waiters.wait(key, groups, mark, this.deps.now().getTime())
    return record.flush(template, { requeueAfterMs: recheckAfterMs(seen, this.opts.kindNotFoundRequeueMs) })
  }

  /** The pass, top to bottom: template, freeze, namespace policy, render, kinds, objects, outputs, Synced, flush. */
  private async pass(
    key: string,
    inst: TemplateInstance,
    memory: InstanceMemory,
    record: InstanceRecord,
    mark: number,
  ): Promise<ReconcileResult> {
    const { deps, steps } = this
    record.stage = 'recording the tracked kinds of an earlier release'
    await record.migrateLegacyKinds()
    record.stage = 'resolving the Template'
    const { template, condition } = steps.resolveTemplate(inst, deps.getTemplate)
    record.set(condition)
    if (template === undefined) {
      this.releaseWatches(key)
      return record.flush(undefined, { requeueAfterMs: this.opts.templateNotFoundRequeueMs })
    }
    const mode = syncModeOf(template)
    if (mode === 'off' && record.prev.firstAppliedAt) {
      this.releaseWatches(key)
      memory.fights.clear()
      record.stage = 'maintaining the objects of the frozen instance'
      await steps.syncFrozen({ ...deps, live: this.live }, inst, template, record)
      return record.flush(template)
    }
    const namespace = inst.metadata?.namespace ?? ''
    const policy = deps.pipeline.checkTargetNamespace(template, namespace, deps.getNamespaceLabels(namespace))
    record.set(namespacePolicy(policy))
    if (!policy.allowed) {
      this.releaseWatches(key)
      return record.flush(template)
    }
    record.stage = 'resolving parameters and rendering'
    const rendered = await steps.renderObjects(deps, { key, inst, template, mode }, memory, record)
    if (!rendered.ok)
      return rendered.unserved ? this.awaitKinds(key, rendered.unserved, mark, record, template) : record.flush(template, rendered.result)
    this.waiters.release(key)
    const owner = { name: inst.metadata?.name ?? '', namespace, uid: inst.metadata?.uid ?? '' }
    const desired = rendered.objects.map((o) => desiredObject(deps.pipeline.stamp(o, owner, mode, inst.spec.templateRef)))
    record.stage = 'recording the rendered kinds'
    const tracked = await steps.recordKinds(record, desired)
    const guarded = mode === 'revert' || mode === 'strict'
    deps.drift.setOwnerKeys(key, guarded ? tracked : [])
    const nowMs = record.now.getTime()
    const ignore = deps.ignore.enforced(template).ignore
    const input = {
      key,
      owner,
      template: inst.spec.templateRef,
      ignore,
      nowMs,
      fight: this.fight,
      tracked,
      guarded,
      ...(guarded ? { components: deps.components } : {}),
    }
    record.stage = 'applying the rendered objects'
    const objects = await steps.syncObjects(desired, input, { ...deps, live: this.live }, memory, record)
    if (!objects.applied)
      return objects.unserved ? this.awaitKinds(key, objects.unserved, mark, record, template) : record.flush(template, objects.result)
    const refs = desired.map((d) => d.ref)
    record.stage = 'reading outputs'
    await steps.refreshOutputs({ template, inst, frozen: false, values: rendered.values, rendered: refs }, this.live, record)
    const synced = { mode, clean: objects.clean, now: record.now, fights: memory.fights, fight: this.fight, tracked }
    record.stage = 'checking the drift watches'
    if (steps.setSynced(synced, deps.drift, record)) this.releaseWatches(key)
    return record.flush(template)
  }
}

/** An error whose message may quote a value read from a Secret (an API server's validation message), redacted. */
function redactError(e: unknown, redact: Redact): unknown {
  if (redact === NO_REDACTION || !(e instanceof Error) || redact(e.message) === e.message) return e
  if (e instanceof KubeApiError) {
    const causes = e.causes.map((c) => (c.message === undefined ? c : { ...c, message: redact(c.message) }))
    return new KubeApiError(e.method, e.path, e.code, e.reason, redact(e.apiMessage), causes)
  }
  return Object.assign(new Error(redact(e.message)), { name: e.name })
}
