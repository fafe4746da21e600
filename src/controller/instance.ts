// The TemplateInstance reconcile: resolve, render, gate with a server-side
// dry-run, apply what differs, clean up what is no longer rendered, protect
// against drift (revert/strict) or freeze (off), and report all of it in status.
// docs/reconcile.md describes the pass step by step.
//
// The decisions about each rendered object are made by the pure plan
// (apply/plan.ts); the requests by the operations next to it (apply/diff.ts,
// apply/apply.ts, apply/prune.ts), which return what happened as a change set;
// this file sequences them and turns the change set into conditions and
// Events (report.ts).

import { createHash } from 'node:crypto'
import type { Logger } from 'pino'
import { isDeepStrictEqual } from 'node:util'
import {
  InstanceConditionType as C,
  type ConditionUpdate,
  deriveInstancePhase,
  deriveReadyCondition,
  findCondition,
  Reason,
  setCondition,
  toTimestamp,
} from '../api/conditions.ts'
import { collectionKey, describeObject, namespacedKey, objectKey, parseObjectKey, refOf } from '../api/identity.ts'
import type { Condition, IdentifiedObject, KubeObject, SourceRef } from '../api/meta.ts'
import { ANNOTATION_TRACKED_KINDS, FIELD_MANAGER, FINALIZER_INSTANCE, FINALIZER_RESOURCE, LABEL_SYNC_MODE } from '../api/names.ts'
import { syncModeOf, type Template } from '../api/template.ts'
import type { ResourceReference, TemplateInstance, TemplateInstanceStatus } from '../api/templateinstance.ts'
import {
  legacyTrackedKind,
  legacyTrackedKindsCopied,
  parseTrackedKindsAnnotation,
  recordedKinds,
  trackedKind,
  trackedKindsAnnotation,
  trackedKindsOf,
} from '../api/templateinstance-kinds.ts'
import type { IgnoreCache } from '../drift/ignore-cache.ts'
import { escapeToken } from '../fieldpath/pointer.ts'
import type { KubeClient } from '../kube/client.ts'
import { CONTENT_JSON_PATCH, CONTENT_MERGE } from '../kube/client.ts'
import { KubeApiError } from '../kube/errors.ts'
import type { ObjectClient } from '../kube/objects.ts'
import { formatInstanceRef, readTemplateRef } from '../api/ownership.ts'
import { extractOutputs, outputSourceRefs } from '../outputs/extract.ts'
import { NO_REDACTION, type Redact, redactValue, redactor, withoutSecretData } from '../render/redact.ts'
import { applyActions } from './apply/apply.ts'
import { type ChangeSet, failures } from './apply/changeset.ts'
import { dryRunGate, foundExisting } from './apply/diff.ts'
import {
  type Check,
  type DesiredObject,
  type DryRunAnswer,
  desiredObject,
  type FirstLook,
  type ObjectAction,
  type ObjectMemory,
  type PlanContext,
  type Release,
  planObject,
  pruneActions,
  remember,
  settle,
} from './apply/plan.ts'
import { deleteOwned, prune, release } from './apply/prune.ts'
import { DEFAULT_FIGHT_OPTIONS, type FightOptions, type FightState, type FightStep, formatDuration } from './fight.ts'
import { LiveObjects } from './live.ts'
import { type ChangeMetrics, countChanges } from './metrics.ts'
import type { RenderPipeline } from './pipeline.ts'
import type { WatchRegistry } from './registry.ts'
import { applyFailure, dryRunFailure, type EventNote, eventsFor, ownershipConflict } from './report.ts'
import { instanceStatusPath, writeStatusVersioned } from './status.ts'

type Versioned = NonNullable<Awaited<ReturnType<typeof writeStatusVersioned>>>

export interface EventSink {
  normal(obj: KubeObject, reason: string, message: string): void
  warning(obj: KubeObject, reason: string, message: string): void
}

export interface InstanceReconcilerOptions {
  /** Quick re-drifts of one object in a row (see conflictWindowMs) from which a fight is reported as DriftConflict. */
  conflictThreshold: number
  /** A re-drift within this long after our correction is quick; a correction that holds this long ends a fight. */
  conflictWindowMs: number
  /** Wait before correcting an object that drifted again right after a correction; doubles per quick re-drift. */
  correctionBackoffMs: number
  /** Cap of that wait: under a fight the rendered state is applied again at least this often. */
  correctionBackoffMaxMs: number
  templateNotFoundRequeueMs: number
}

export const DEFAULT_INSTANCE_OPTIONS: InstanceReconcilerOptions = {
  conflictThreshold: DEFAULT_FIGHT_OPTIONS.threshold,
  conflictWindowMs: DEFAULT_FIGHT_OPTIONS.windowMs,
  correctionBackoffMs: DEFAULT_FIGHT_OPTIONS.backoffMs,
  correctionBackoffMaxMs: DEFAULT_FIGHT_OPTIONS.backoffMaxMs,
  templateNotFoundRequeueMs: 30_000,
}

export interface InstanceDeps {
  client: KubeClient
  objects: ObjectClient
  getTemplate(namespace: string, name: string): Template | undefined
  getInstance(namespace: string, name: string): TemplateInstance | undefined
  getNamespaceLabels(name: string): Record<string, string> | undefined
  /** Shared drift watches, keyed by tracked kind. */
  drift: WatchRegistry
  /** Shared parameter-source watches, keyed by collectionKey() (sourceWatchKeys). */
  sources: WatchRegistry
  /** Watches of single objects an instance is in an ownership conflict with, keyed by objectKey(). */
  conflicts: WatchRegistry
  pipeline: RenderPipeline
  /** Compiled ignoreFields per Template (forget() on Template delete). */
  ignore: IgnoreCache
  events: EventSink
  log: Logger
  now(): Date
  options?: Partial<InstanceReconcilerOptions>
  /** Counts what each pass did (corrections, fights, failed requests). */
  metrics?: ChangeMetrics
}

/** What the reconciler remembers about one instance between reconciles (never persisted). */
interface Memory {
  uid: string
  /** Per rendered object (objectKey): our last apply of it. */
  applied: Map<string, NonNullable<ObjectMemory['applied']>>
  /** Per object that drifted back after a correction: the backoff state (./fight.ts). */
  fights: Map<string, FightState>
  /**
   * When the API server last dropped status.trackedKinds (a CRD older than the
   * reconciler): until TRACKED_KINDS_PROBE_MS later the list goes to trackedGVKs too.
   */
  trackedKindsDroppedAt: number | undefined
  /** Bumped by parameter-source watch events; part of the render memo key. */
  sourceEpoch: number
  /**
   * Our last status write, and the resourceVersions of the instance it was made
   * over (the one the pass read, then those of its own earlier writes). While
   * the cache still holds one of them, it has not delivered the
   * write yet: the next pass starts from what we wrote, not from the older
   * status, which would make it write the same status again.
   */
  written?: { readonly overRvs: readonly string[]; readonly status: TemplateInstanceStatus }
  /**
   * What our last metadata patch put on the instance (the finalizer and the
   * tracked-kinds annotation), kept on the same terms as `written`: while the
   * cache shows one of `overRvs`, it shows the instance from before the patch.
   */
  recorded?: { readonly overRvs: readonly string[]; readonly kinds: readonly string[] }
  renderMemo?: {
    key: string
    objects: IdentifiedObject[]
    values: Record<string, unknown>
    resolved: NonNullable<TemplateInstanceStatus['resolvedParameters']>
    sources: SourceRef[]
    withheld: readonly string[]
    /** Built from the values read from Secrets. */
    redact: Redact
  }
}

export interface ReconcileResult {
  requeueAfterMs?: number
}

function hashOf(v: unknown): string {
  return createHash('sha256').update(JSON.stringify(v)).digest('base64url')
}

function apiMessage(e: unknown): string {
  return e instanceof KubeApiError ? e.apiMessage : (e as Error).message
}

/**
 * What one pass has decided so far: the conditions and status it will write,
 * the change set and the Events it will record, and when to come back.
 */
class Pass {
  conditions: readonly Condition[]
  readonly status: TemplateInstanceStatus
  readonly changes: ChangeSet = []
  /** Events about the pass as a whole (conflicts, a rejected render, failed applies, watches). */
  readonly notes: EventNote[] = []
  requeueAfterMs: number | undefined
  /** Takes the values read from Secrets out of every text the pass sends out (src/render/redact.ts). */
  redact: Redact = NO_REDACTION
  private readonly now: Date
  private readonly generation: number | undefined

  constructor(now: Date, generation: number | undefined, prev: TemplateInstanceStatus) {
    this.now = now
    this.generation = generation
    this.conditions = prev.conditions ?? []
    this.status = { ...prev }
  }

  set(u: ConditionUpdate): void {
    const observed = this.generation !== undefined ? { observedGeneration: this.generation } : {}
    const message = u.message === undefined ? {} : { message: this.redact(u.message) }
    this.conditions = setCondition(this.conditions, { ...u, ...observed, ...message }, this.now)
  }

  /** Come back after ms at the latest. */
  wake(ms: number): void {
    this.requeueAfterMs = Math.min(this.requeueAfterMs ?? Infinity, ms)
  }

  report(r: { readonly condition: ConditionUpdate; readonly event: EventNote }): void {
    this.set(r.condition)
    this.notes.push(r.event)
  }
}

export class InstanceReconciler {
  private readonly deps: InstanceDeps
  private readonly opts: InstanceReconcilerOptions
  private readonly memory = new Map<string, Memory>()
  private readonly fight: FightOptions
  private readonly live: LiveObjects

  constructor(deps: InstanceDeps) {
    this.deps = deps
    this.opts = { ...DEFAULT_INSTANCE_OPTIONS, ...(deps.options ?? {}) }
    this.fight = {
      windowMs: this.opts.conflictWindowMs,
      threshold: this.opts.conflictThreshold,
      backoffMs: this.opts.correctionBackoffMs,
      backoffMaxMs: this.opts.correctionBackoffMaxMs,
    }
    this.live = new LiveObjects({ objects: deps.objects, drift: deps.drift, conflicts: deps.conflicts })
  }

  /** Called by the manager when a parameter source of the instance changed. */
  sourceChanged(instanceKey: string): void {
    const m = this.memory.get(instanceKey)
    if (m) m.sourceEpoch++
  }

  forget(instanceKey: string): void {
    this.memory.delete(instanceKey)
    this.releaseWatches(instanceKey)
  }

  private releaseWatches(instanceKey: string): void {
    this.deps.drift.release(instanceKey)
    this.deps.sources.release(instanceKey)
    this.deps.conflicts.release(instanceKey)
  }

  private mem(key: string, uid: string): Memory {
    let m = this.memory.get(key)
    if (!m || m.uid !== uid) {
      m = { uid, applied: new Map(), fights: new Map(), trackedKindsDroppedAt: undefined, sourceEpoch: 0 }
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
    if (inst.metadata.deletionTimestamp) return this.finalize(key, inst)
    // Our finalizer is added by the pass itself: with the kinds about to be
    // applied (step 5), or at its end when it applied nothing.
    const now = this.deps.now()
    const pass = new Pass(now, inst.metadata.generation, this.statusBase(key, inst))
    try {
      return await this.sync(key, inst, pass, now)
    } catch (e) {
      throw redactError(e, pass.redact)
    } finally {
      // Normally recorded before the status write; here also when the pass failed half-way.
      this.record(inst, pass)
    }
  }

  /** The status a pass starts from: our last write while the cache has not delivered it, else the cached one. */
  private statusBase(key: string, inst: TemplateInstance): TemplateInstanceStatus {
    const m = this.memory.get(key)
    const w = m?.uid === inst.metadata?.uid ? m?.written : undefined
    if (w?.overRvs.includes(inst.metadata?.resourceVersion ?? '')) return w.status
    if (m) delete m.written
    return inst.status ?? {}
  }

  /**
   * One JSON patch that records `kinds` in the tracked-kinds annotation and
   * adds our finalizer when it is missing, made over `rv` (the newest version
   * of the instance we know); returns the resourceVersion it gave the instance.
   */
  private async recordOnInstance(
    inst: TemplateInstance,
    on: { readonly finalizer: boolean; readonly annotated: boolean },
    kinds: readonly string[],
    rv: string,
  ): Promise<string> {
    const path = instanceStatusPath(inst.metadata?.namespace ?? '', inst.metadata?.name ?? '').replace(/\/status$/, '')
    const patch: Record<string, unknown>[] = [{ op: 'test', path: '/metadata/resourceVersion', value: rv }]
    if (!on.finalizer) {
      patch.push(
        (inst.metadata?.finalizers ?? []).length > 0
          ? { op: 'add', path: '/metadata/finalizers/-', value: FINALIZER_INSTANCE }
          : { op: 'add', path: '/metadata/finalizers', value: [FINALIZER_INSTANCE] },
      )
    }
    if (kinds.length > 0) {
      const value = trackedKindsAnnotation(kinds)
      patch.push(
        on.annotated
          ? { op: 'add', path: `/metadata/annotations/${escapeToken(ANNOTATION_TRACKED_KINDS)}`, value }
          : { op: 'add', path: '/metadata/annotations', value: { [ANNOTATION_TRACKED_KINDS]: value } },
      )
    }
    const stored = await this.deps.client.request<TemplateInstance>('PATCH', path, { body: patch, contentType: CONTENT_JSON_PATCH })
    return stored?.metadata?.resourceVersion ?? ''
  }

  private async finalize(key: string, inst: TemplateInstance): Promise<ReconcileResult> {
    this.releaseWatches(key)
    if (!(inst.metadata?.finalizers ?? []).includes(FINALIZER_INSTANCE)) {
      this.memory.delete(key)
      return {}
    }
    const uid = inst.metadata?.uid ?? ''
    const kinds = recordedKinds(inst)
    const { objects, errors } = await this.live.owned(uid, kinds, false)
    const failed: string[] = [...errors]
    for (const obj of objects) {
      try {
        await deleteOwned(this.deps.objects, obj)
        this.deps.events.normal(inst, 'Deleted', `deleted ${describeObject(refOf(obj))}`)
      } catch (e) {
        failed.push(`${describeObject(refOf(obj))}: ${apiMessage(e)}`)
      }
    }
    if (failed.length > 0) {
      this.deps.events.warning(inst, 'DeleteFailed', `could not delete rendered resources: ${failed.slice(0, 3).join('; ')}`)
      throw new Error(`TemplateInstance ${key}: cleanup incomplete: ${failed.join('; ')}`)
    }
    // Objects removed above vanish once their other finalizers (if any) are gone;
    // confirm nothing of ours is left before letting the instance go.
    const again = await this.live.owned(uid, kinds, false)
    const remaining = again.objects.filter(
      (o) => (o.metadata.finalizers ?? []).includes(FINALIZER_RESOURCE) || !o.metadata.deletionTimestamp,
    )
    if (remaining.length > 0 || again.errors.length > 0) return { requeueAfterMs: 1000 }
    const live = await this.deps.objects.get({
      apiVersion: inst.apiVersion ?? '',
      kind: inst.kind ?? 'TemplateInstance',
      name: inst.metadata?.name ?? '',
      namespace: inst.metadata?.namespace ?? '',
    })
    if (live) await this.deps.objects.removeFinalizer(live, FINALIZER_INSTANCE)
    this.memory.delete(key)
    return {}
  }

  private async sync(key: string, inst: TemplateInstance, pass: Pass, now: Date): Promise<ReconcileResult> {
    const ns = inst.metadata?.namespace ?? ''
    const name = inst.metadata?.name ?? ''
    const uid = inst.metadata?.uid ?? ''
    const gen = inst.metadata?.generation
    const m = this.mem(key, uid)
    // A copy: the cached status is frozen, and trackedKinds is updated below.
    const prev: TemplateInstanceStatus = { ...this.statusBase(key, inst) }
    const overRvs = [inst.metadata?.resourceVersion ?? '']
    const wrote = (stored: Versioned | undefined): void => {
      if (!stored) return
      m.written = { overRvs: [...overRvs], status: stored.status as TemplateInstanceStatus }
      overRvs.push(stored.resourceVersion)
    }
    const status = pass.status
    const set = (u: ConditionUpdate): void => pass.set(u)
    // The finalizer and the tracked-kinds annotation as the instance holds
    // them: from our own patch while the cache has not delivered it yet.
    const recorded = m.recorded?.overRvs.includes(overRvs[0] ?? '') ? m.recorded : undefined
    if (!recorded) delete m.recorded
    const annotations = inst.metadata?.annotations
    const onInstance = {
      finalizer: recorded !== undefined || (inst.metadata?.finalizers ?? []).includes(FINALIZER_INSTANCE),
      annotated: recorded !== undefined || annotations !== undefined,
      kinds: recorded ? recorded.kinds : parseTrackedKindsAnnotation(annotations?.[ANNOTATION_TRACKED_KINDS]),
    }
    /** Records `kinds` and our finalizer on the instance unless it holds them already: one request. */
    const recordKinds = async (kinds: readonly string[]): Promise<void> => {
      if (onInstance.finalizer && kinds.every((k) => onInstance.kinds.includes(k))) return
      const all = [...new Set([...onInstance.kinds, ...kinds])].sort()
      const rv = await this.recordOnInstance(inst, onInstance, all, overRvs.at(-1) ?? '')
      m.recorded = { overRvs: [...overRvs], kinds: all }
      overRvs.push(rv)
      Object.assign(onInstance, { finalizer: true, annotated: onInstance.annotated || all.length > 0, kinds: all })
    }
    // status.trackedKinds replaces trackedGVKs: read both, and drop the older
    // field only once the server has stored all of it in the new one. The
    // annotation may hold kinds of a pass that ended before its status write.
    const knownKinds = [...new Set([...trackedKindsOf(prev), ...onInstance.kinds])].sort()
    if (knownKinds.length > 0) status.trackedKinds = knownKinds
    let confirmed: TemplateInstanceStatus | undefined = prev
    const nowMs = now.getTime()
    if (!legacyTrackedKindsCopied(prev)) {
      // Written by an older release: store the list in trackedKinds first, so
      // that this pass can drop trackedGVKs whichever way it ends.
      const moved = await this.moveLegacyTrackedKinds(inst, m, prev, status, knownKinds, dropsTrackedKinds(m, nowMs) ? undefined : nowMs)
      for (const w of moved.writes) wrote(w)
      if (moved.stored) confirmed = moved.stored
    }
    // Without an explicit result, come back when the earliest wait (a backoff, a recheck) is over.
    const finish = async (result?: ReconcileResult): Promise<ReconcileResult> => {
      // Every instance carries our finalizer, also one that has applied nothing yet.
      if (!onInstance.finalizer) await recordKinds(knownKinds)
      // A field the server drops anyway would make every pass a write.
      if (dropsTrackedKinds(m, nowMs)) delete status.trackedKinds
      else if (legacyTrackedKindsCopied(confirmed)) delete status.trackedGVKs
      set(deriveReadyCondition(pass.conditions, this.deps.getTemplate(inst.spec.templateRef.namespace, inst.spec.templateRef.name)))
      status.conditions = [...pass.conditions]
      status.phase = deriveInstancePhase(pass.conditions)
      if (gen !== undefined && status.phase === 'Ready') status.observedGeneration = gen
      this.record(inst, pass)
      const path = instanceStatusPath(ns, name)
      const sendsKinds = status.trackedKinds !== undefined && !isDeepStrictEqual(status.trackedKinds, prev.trackedKinds ?? [])
      const stored = await writeStatusVersioned(this.deps.client, path, prev as Record<string, unknown>, status as Record<string, unknown>)
      wrote(stored)
      if (stored && sendsKinds) wrote(await this.checkTrackedKindsStored(inst, m, path, stored.status, status, nowMs))
      return result ?? (pass.requeueAfterMs !== undefined ? { requeueAfterMs: pass.requeueAfterMs } : {})
    }

    // 1. Template
    const ref = inst.spec.templateRef
    const template = this.deps.getTemplate(ref.namespace, ref.name)
    if (!template) {
      set({
        type: C.TemplateResolved,
        status: 'False',
        reason: Reason.TemplateNotFound,
        message: `Template ${ref.namespace}/${ref.name} not found`,
      })
      this.releaseWatches(key)
      return finish({ requeueAfterMs: this.opts.templateNotFoundRequeueMs })
    }
    set({
      type: C.TemplateResolved,
      status: 'True',
      reason: Reason.Success,
      message: `using Template ${ref.namespace}/${ref.name} generation ${template.metadata?.generation ?? 0}`,
    })
    const mode = syncModeOf(template)
    const ignore = this.deps.ignore.enforced(template).ignore

    // 2. Frozen (off after the first clean pass): touch nothing but the mode label.
    if (mode === 'off' && prev.firstAppliedAt) {
      this.releaseWatches(key)
      m.fights.clear()
      const { missing, kept } = await this.maintainFrozen(inst, knownKinds, prev.renderedResources ?? [])
      await this.refreshOutputs(
        template,
        inst,
        status,
        set,
        { frozen: true, values: {}, rendered: prev.renderedResources ?? [] },
        pass.redact,
      )
      set({
        type: C.Synced,
        status: 'False',
        reason: Reason.Frozen,
        message:
          `frozen since ${prev.firstAppliedAt}: sync mode is off` +
          (missing.length > 0 ? `; missing rendered objects (not recreated under off): ${missing.slice(0, 5).join(', ')}` : '') +
          (kept.length > 0
            ? `; rendered by another Template, these keep its protection until this instance applies them again: ${kept.slice(0, 5).join(', ')}`
            : ''),
      })
      return finish()
    }

    // 3. Target namespace policy
    const policy = this.deps.pipeline.checkTargetNamespace(template, ns, this.deps.getNamespaceLabels(ns))
    if (!policy.allowed) {
      set({ type: C.TargetNamespaceAllowed, status: 'False', reason: policy.reason, message: policy.message })
      this.releaseWatches(key)
      return finish()
    }
    set({ type: C.TargetNamespaceAllowed, status: 'True', reason: Reason.Success, message: '' })

    // 4. Parameters and render, memoized on their inputs so that drift events
    //    (which change neither) do not re-read parameter sources.
    const memoKey = hashOf([template.metadata?.uid, template.metadata?.generation, uid, gen, inst.metadata?.labels ?? {}, m.sourceEpoch])
    let desiredRaw: IdentifiedObject[]
    let values: Record<string, unknown>
    let withheld: readonly string[]
    if (m.renderMemo?.key === memoKey) {
      desiredRaw = m.renderMemo.objects
      values = m.renderMemo.values
      status.resolvedParameters = m.renderMemo.resolved
      withheld = m.renderMemo.withheld
      pass.redact = m.renderMemo.redact
    } else {
      const params = await this.deps.pipeline.resolveParameters(template, inst)
      this.deps.sources.setOwnerKeys(key, mode === 'off' ? [] : sourceWatchKeys(params.sources))
      if (!params.ok) {
        set({ type: C.ParametersValid, status: 'False', reason: params.reason, message: params.message })
        return finish()
      }
      status.resolvedParameters = params.resolved
      withheld = params.withheld
      pass.redact = redactor(params.secretValues)
      const rendered = await this.deps.pipeline.render(template, inst, params.values)
      if (!rendered.ok) {
        set(parametersResolved(withheld))
        set({ type: C.Rendered, status: 'False', reason: rendered.reason, message: rendered.message })
        return finish(rendered.retryAfterMs === undefined ? undefined : { requeueAfterMs: rendered.retryAfterMs })
      }
      // A copy that owns its strings: a value the YAML parser cut out of the
      // rendered text is a slice that keeps the whole text alive for as long
      // as the memo holds the object (docs/reconciler-memory.md).
      desiredRaw = structuredClone(rendered.objects)
      values = params.values
      m.renderMemo = {
        key: memoKey,
        objects: desiredRaw,
        values,
        resolved: params.resolved,
        sources: params.sources,
        withheld,
        redact: pass.redact,
      }
    }
    set(parametersResolved(withheld))
    set({ type: C.Rendered, status: 'True', reason: Reason.Success, message: `${desiredRaw.length} object(s) rendered` })
    status.resolvedTemplateRef = {
      name: ref.name,
      namespace: ref.namespace,
      ...(template.metadata?.generation !== undefined ? { generation: template.metadata.generation } : {}),
    }

    const desired = desiredRaw.map((o) => desiredObject(this.deps.pipeline.stamp(o, { name, namespace: ns, uid }, mode, ref)))

    // 5. Record the kinds about to be applied on the instance before any apply
    //    (with our finalizer, in one patch), so that cleanup can always find
    //    what we create; status.trackedKinds follows with the status write.
    const tracked = [...new Set([...knownKinds, ...desired.map((d) => trackedKind(d.obj.apiVersion, d.obj.kind))])].sort()
    status.trackedKinds = tracked
    if (dropsTrackedKinds(m, nowMs)) status.trackedGVKs = tracked.map(legacyTrackedKind)
    await recordKinds(tracked)

    // 6. Drift watches for revert/strict; released under off.
    const guarded = mode === 'revert' || mode === 'strict'
    this.deps.drift.setOwnerKeys(key, guarded ? tracked : [])

    // 7. The first look at each object (apply/plan.ts): live state, ownership, whether to ask the API server.
    //    An object a synced drift cache does not hold is taken as absent, unread; the dry-run tells (8).
    const ctx: PlanContext = { owner: { name, namespace: ns, uid }, ignore, now: nowMs, fight: this.fight }
    const looks: FirstLook[] = []
    const unconfirmed = new Set<string>()
    const look = (d: DesiredObject, live: IdentifiedObject | undefined): FirstLook => {
      const l = planObject(d, live, this.remembered(m, d.key), ctx)
      if (l.type === 'unchanged') this.keep(m, pass, l, undefined, nowMs)
      if (l.type === 'wait') pass.wake(l.waitMs)
      return l
    }
    for (const d of desired) {
      // Our own apply of this render, which the drift watch may not have
      // delivered yet (a pass its first events brought on), stands in for the
      // live object until it does: no dry-run to find out what we just wrote.
      const applied = m.applied.get(d.key)
      const seen = await this.live.lookup(d.obj, applied?.desiredHash === d.hash ? applied.result : undefined)
      if (seen.unconfirmed) unconfirmed.add(d.key)
      looks.push(look(d, seen.live))
    }
    const answers = new Map<string, DryRunAnswer>()
    const met = (a: DryRunAnswer | undefined): boolean => a !== undefined && foundExisting(a)
    const released = new Set<string>()
    for (;;) {
      // Objects we are in conflict with carry none of our labels, so no drift
      // watch sees them: watch each by name until the conflict ends, so that an
      // adoption annotation (or a delete) is noticed at once.
      const conflicts = looks.filter((l) => l.type === 'conflict')
      this.deps.conflicts.setOwnerKeys(
        key,
        conflicts.map((c) => c.desired.key),
      )
      if (conflicts.length > 0) {
        for (const c of conflicts)
          pass.changes.push({ action: 'conflict', ref: c.desired.ref, ...(c.ownerUid ? { ownerUid: c.ownerUid } : {}) })
        const report = ownershipConflict(pass.changes, formatInstanceRef({ namespace: ns, name }))
        if (report) pass.report(report)
        return finish()
      }

      // A rendered object someone deleted: let it go (release our finalizer); the
      // DELETED event brings us back to re-create it.
      const releases = looks.filter((l): l is Release => l.type === 'release' && !released.has(l.desired.key))
      for (const r of releases) released.add(r.desired.key)
      for (const r of await release(this.deps.objects, releases)) {
        if (r.action === 'failed')
          this.deps.log.warn(
            { instance: key, object: describeObject(r.ref), err: pass.redact(r.error.message) },
            'could not release deleted object',
          )
        else pass.changes.push(r)
        pass.wake(500)
      }

      // 8. Dry-run gate and drift check: nothing is applied unless every object passes.
      const pending = looks.filter((l): l is Check => l.type === 'check' && !answers.has(l.desired.key))
      const gate = await dryRunGate(this.deps.objects, pending, ignore)
      // An object taken as absent that the dry-run met (or that failed it, maybe
      // for being someone else's) is read now and looked at again, once.
      const found = pending.filter(
        (c) =>
          unconfirmed.has(c.desired.key) && (gate.ok ? met(gate.answers.get(c.desired.key)) : objectKey(gate.failed.ref) === c.desired.key),
      )
      if (gate.ok) for (const [k, answer] of gate.answers) if (!found.some((c) => c.desired.key === k)) answers.set(k, answer)
      if (found.length === 0) {
        if (!gate.ok) {
          pass.changes.push({ action: 'failed', ref: gate.failed.ref, error: gate.failed })
          pass.report(dryRunFailure(gate.failed))
          return finish()
        }
        break
      }
      for (const c of found) {
        unconfirmed.delete(c.desired.key)
        looks[looks.indexOf(c)] = look(c.desired, await this.live.get(c.desired.obj))
      }
    }
    const checks = looks.filter((l): l is Check => l.type === 'check')

    // 9. Apply what differs; a correction of an object that keeps drifting back waits out its backoff (./fight.ts).
    const actions: ObjectAction[] = []
    for (const c of checks) {
      const action = settle(c, this.remembered(m, c.desired.key), answers.get(c.desired.key), ctx)
      if (action.type === 'wait') pass.wake(action.waitMs)
      actions.push(action)
    }
    for (const action of actions) if (action.type === 'unchanged' || action.type === 'wait') this.keep(m, pass, action, undefined, nowMs)
    const failedKeys = new Set<string>()
    for (const out of await applyActions(this.deps.objects, actions, () => this.deps.now().getTime())) {
      const { action } = out
      if (action.type !== 'create' && action.type !== 'update' && action.type !== 'correct') continue
      const corrected = this.keep(m, pass, action, out.result, out.at)
      if (out.error) {
        failedKeys.add(action.desired.key)
        pass.changes.push({ action: 'failed', ref: action.desired.ref, error: out.error })
      } else if (action.type === 'correct') {
        const resumed = corrected?.notice?.kind === 'resumed' ? corrected.notice : undefined
        pass.changes.push({
          action: 'corrected',
          ref: action.desired.ref,
          changes: action.changes,
          ...(resumed ? { resumed: { waitedMs: resumed.waitedMs, manager: resumed.manager } } : {}),
        })
      } else {
        pass.changes.push({ action: action.type === 'create' ? 'created' : 'updated', ref: action.desired.ref })
      }
    }
    const applyFailed = applyFailure(failures(pass.changes, 'apply'))
    if (applyFailed) {
      pass.report(applyFailed)
      status.renderedResources = this.resourceRefs(desired, m, failedKeys)
      pass.wake(5000)
      return finish({ requeueAfterMs: pass.requeueAfterMs ?? 5000 })
    }

    // 10. Orphans: objects of ours that the render no longer names.
    const desiredKeys = new Set(desired.map((d) => d.key))
    for (const k of m.fights.keys()) if (!desiredKeys.has(k)) m.fights.delete(k)
    const owned = await this.live.owned(uid, tracked, guarded)
    const pruned = await prune(this.deps.objects, pruneActions(owned.objects, desiredKeys))
    const failedDeletes: ResourceReference[] = []
    for (const p of pruned) {
      pass.changes.push(p)
      if (p.action === 'pruned') m.applied.delete(objectKey(p.ref))
      else failedDeletes.push({ ...p.ref, status: 'Failed' })
    }
    set({ type: C.Applied, status: 'True', reason: Reason.Success, message: `${desired.length} object(s) applied` })
    status.renderedResources = [...this.resourceRefs(desired, m, new Set()), ...failedDeletes]
    const clean = owned.errors.length === 0 && failedDeletes.length === 0 && released.size === 0

    await this.refreshOutputs(template, inst, status, set, { frozen: false, values, rendered: desired.map((d) => d.ref) }, pass.redact)

    // 11. Sync condition.
    if (mode === 'off') {
      if (clean) {
        status.firstAppliedAt = toTimestamp(now)
        set({ type: C.Synced, status: 'False', reason: Reason.Frozen, message: `frozen since ${status.firstAppliedAt}: sync mode is off` })
        this.releaseWatches(key)
      } else {
        set({
          type: C.Synced,
          status: 'False',
          reason: Reason.SyncPending,
          message: 'sync mode is off; applying until the first clean pass',
        })
        pass.wake(2000)
      }
    } else if ([...m.fights.values()].some((f) => f.conflict)) {
      const parts = [...m.fights]
        .filter(([, f]) => f.conflict)
        .slice(0, 5)
        .map(([k, f]) => `field manager "${f.conflict?.manager}" keeps changing ${describeObject(parseObjectKey(k))}`)
      set({
        type: C.Synced,
        status: 'False',
        reason: Reason.DriftConflict,
        message: `${parts.join('; ')}; corrections continue with backoff (at least every ${formatDuration(this.fight.backoffMaxMs)}) until the object stays as rendered for ${formatDuration(this.fight.windowMs)}`,
      })
    } else {
      const states = tracked.map((g) => this.deps.drift.state(g))
      const failed = states.filter((s) => s.error !== undefined)
      const starting = states.filter((s) => !s.synced && s.error === undefined)
      if (failed.length > 0) {
        const msg = failed.map((s) => `${s.key}: ${s.error}`).join('; ')
        set({ type: C.Synced, status: 'False', reason: Reason.WatchFailed, message: `drift watch not running for ${msg}` })
        pass.notes.push({ type: 'Warning', reason: Reason.WatchFailed, message: `drift watch not running for ${msg}` })
        this.deps.drift.retryFailed()
        pass.wake(10_000)
      } else if (starting.length > 0 && syncedBefore(prev)) {
        // A watch starting again (a restart, a new leader) does not un-sync an
        // instance that was synced: the pass comes back once it has synced, and
        // a restart over converged instances writes nothing.
        pass.wake(250)
      } else if (starting.length > 0) {
        set({
          type: C.Synced,
          status: 'Unknown',
          reason: Reason.SyncPending,
          message: `starting drift watches for ${starting.map((s) => s.key).join(', ')}`,
        })
        pass.wake(250)
      } else {
        set({
          type: C.Synced,
          status: 'True',
          reason: Reason.SyncActive,
          message: `drift watches active for ${states.length} kind(s); mode ${mode}`,
        })
      }
    }
    return finish()
  }

  private remembered(m: Memory, key: string): ObjectMemory {
    const applied = m.applied.get(key)
    const fight = m.fights.get(key)
    return { ...(applied ? { applied } : {}), ...(fight ? { fight } : {}) }
  }

  /**
   * Stores what to remember about an object after its action (apply/plan.ts
   * remember) and reports what its fight state says: the start or the end of a
   * fight into the change set, a later look as a requeue.
   */
  private keep(m: Memory, pass: Pass, action: ObjectAction, result: IdentifiedObject | undefined, at: number): FightStep | undefined {
    const key = action.desired.key
    const { memory, corrected } = remember(this.remembered(m, key), action, result, at, this.fight)
    if (memory.applied) m.applied.set(key, memory.applied)
    else m.applied.delete(key)
    if (memory.fight) m.fights.set(key, memory.fight)
    else m.fights.delete(key)
    const steps = [action.type === 'unchanged' || action.type === 'wait' || action.type === 'correct' ? action.fight : undefined, corrected]
    for (const step of steps) {
      if (step?.recheckMs !== undefined) pass.wake(step.recheckMs)
      const notice = step?.notice
      if (notice?.kind === 'conflict' || notice?.kind === 'ended') pass.changes.push({ action: 'fight', ref: action.desired.ref, notice })
    }
    return corrected
  }

  /** Records the pass's Events, once. */
  private record(inst: TemplateInstance, pass: Pass): void {
    const changes = pass.changes.splice(0)
    if (this.deps.metrics) countChanges(this.deps.metrics, inst.metadata?.namespace ?? '', changes)
    const notes = [...eventsFor(changes, this.fight), ...pass.notes.splice(0)]
    for (const n of notes) {
      const message = pass.redact(n.message)
      if (n.type === 'Normal') this.deps.events.normal(inst, n.reason, message)
      else this.deps.events.warning(inst, n.reason, message)
    }
  }

  /**
   * Stores the kinds an older release recorded in trackedGVKs in trackedKinds
   * before anything else, so that this pass can drop the older field
   * whichever way it ends. While the CRD is known to drop trackedKinds
   * (probeAt undefined), the list stays in trackedGVKs too.
   */
  private async moveLegacyTrackedKinds(
    inst: TemplateInstance,
    m: Memory,
    prev: TemplateInstanceStatus,
    status: TemplateInstanceStatus,
    known: readonly string[],
    /** Set when trackedKinds is to be written (and checked); undefined while the CRD is known to drop it. */
    probeAt: number | undefined,
  ): Promise<{ stored?: TemplateInstanceStatus; writes: Versioned[] }> {
    const legacy = probeAt === undefined ? known.map(legacyTrackedKind) : undefined
    if (legacy) status.trackedGVKs = legacy
    const alreadyStored = legacy ? isDeepStrictEqual(legacy, prev.trackedGVKs) : isDeepStrictEqual(known, prev.trackedKinds ?? [])
    if (alreadyStored) return { writes: [] }
    const path = instanceStatusPath(inst.metadata?.namespace ?? '', inst.metadata?.name ?? '')
    const early: TemplateInstanceStatus = { ...prev, trackedKinds: [...known], ...(legacy ? { trackedGVKs: legacy } : {}) }
    const writes: Versioned[] = []
    const first = await writeStatusVersioned(this.deps.client, path, prev as Record<string, unknown>, early as Record<string, unknown>)
    if (first) writes.push(first)
    let stored = first?.status
    if (first && probeAt !== undefined) {
      const again = await this.checkTrackedKindsStored(inst, m, path, first.status, early, probeAt)
      if (again) {
        writes.push(again)
        stored = again.status
      }
      if (early.trackedGVKs) status.trackedGVKs = early.trackedGVKs
    }
    Object.assign(prev, { trackedKinds: [...known] }, early.trackedGVKs ? { trackedGVKs: early.trackedGVKs } : {})
    return stored ? { stored: stored as TemplateInstanceStatus, writes } : { writes }
  }

  /**
   * After a status write that sent trackedKinds: whether the API server kept
   * them. A CRD older than the reconciler drops the field; then the list is
   * written again in the older trackedGVKs, which that CRD knows.
   */
  private async checkTrackedKindsStored(
    inst: TemplateInstance,
    m: Memory,
    path: string,
    stored: Record<string, unknown>,
    status: TemplateInstanceStatus,
    nowMs: number,
  ): Promise<Versioned | undefined> {
    if (Array.isArray(stored.trackedKinds)) {
      m.trackedKindsDroppedAt = undefined
      return undefined
    }
    m.trackedKindsDroppedAt = nowMs
    const message =
      'the API server dropped status.trackedKinds: the TemplateInstance CRD is older than the reconciler. ' +
      'Apply the CRDs of this release (charts/template-sync/crds; Helm does not upgrade them); meanwhile the kinds are kept in status.trackedGVKs'
    this.deps.log.error({ instance: path }, message)
    this.deps.events.warning(inst, 'OutdatedCRD', message)
    status.trackedGVKs = (status.trackedKinds ?? []).map(legacyTrackedKind)
    delete status.trackedKinds
    return writeStatusVersioned(this.deps.client, path, stored, status as Record<string, unknown>)
  }

  /** Template outputs into status.outputs, live in every mode (frozen ones read recorded parameters only). */
  private async refreshOutputs(
    template: Template,
    inst: TemplateInstance,
    status: TemplateInstanceStatus,
    set: (u: ConditionUpdate) => void,
    how: {
      frozen: boolean
      values: Record<string, unknown>
      rendered: readonly { apiVersion: string; kind: string; name: string; namespace?: string }[]
    },
    redact: Redact,
  ): Promise<void> {
    const outputs = template.spec.outputs ?? []
    if (outputs.length === 0 && status.outputs === undefined) {
      set({ type: C.OutputsResolved, status: 'True', reason: Reason.NoOutputs, message: '' })
      return
    }
    const base = {
      outputs,
      context: {
        parameters: how.frozen ? {} : how.values,
        instance: { name: inst.metadata?.name ?? '', namespace: inst.metadata?.namespace ?? '', labels: inst.metadata?.labels ?? {} },
      },
      frozen: how.frozen,
      ...(status.resolvedParameters ? { resolvedParameters: status.resolvedParameters } : {}),
      exposedParameters: new Set((template.spec.parameters ?? []).filter((p) => p.exposeInStatus === true).map((p) => p.name)),
      rendered: how.rendered,
    }
    const live = new Map<string, object | undefined>()
    for (const r of outputSourceRefs(base)) {
      const ref = { apiVersion: r.apiVersion, kind: r.kind, name: r.name, ...(r.namespace ? { namespace: r.namespace } : {}) }
      const obj = await this.live
        .get({ apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.name, ...(r.namespace ? { namespace: r.namespace } : {}) } })
        .catch(() => undefined)
      // Outputs never copy a Secret's content into status.
      live.set(objectKey(ref), withoutSecretData(obj))
    }
    const out = extractOutputs({
      ...base,
      live: (r) =>
        live.get(objectKey({ apiVersion: r.apiVersion, kind: r.kind, name: r.name, ...(r.namespace ? { namespace: r.namespace } : {}) })),
    })
    if (Object.keys(out.values).length > 0) status.outputs = redactValue(out.values, redact)
    else delete status.outputs
    set({ type: C.OutputsResolved, status: out.condition.status, reason: out.condition.reason, message: out.condition.message })
  }

  private resourceRefs(desired: readonly DesiredObject[], m: Memory, failed: ReadonlySet<string>): ResourceReference[] {
    return desired.map((d) => {
      const ref: ResourceReference = { ...d.ref }
      const generation = m.applied.get(d.key)?.result.metadata.generation
      if (generation !== undefined) ref.observedGeneration = generation
      if (failed.has(d.key)) ref.status = 'Failed'
      return ref
    })
  }

  /**
   * While frozen: keep the sync-mode label current, drop our finalizer (so a
   * manual delete completes), never recreate, and report which rendered
   * objects are gone. An object another Template rendered (the instance's
   * templateRef changed since) is left as it is: its protection is that
   * Template's until this instance applies it again, and relabelling it here
   * would let the instance's author switch strict off (docs/security.md).
   */
  private async maintainFrozen(
    inst: TemplateInstance,
    gvks: readonly string[],
    rendered: readonly ResourceReference[],
  ): Promise<{ missing: string[]; kept: string[] }> {
    const { objects } = await this.live.owned(inst.metadata?.uid ?? '', gvks, false)
    const byKey = new Map(objects.map((o) => [objectKey(refOf(o)), o]))
    const current = formatInstanceRef(inst.spec.templateRef)
    const missing: string[] = []
    const kept: string[] = []
    for (const r of rendered) {
      const o = byKey.get(objectKey(r))
      if (!o) {
        missing.push(describeObject(r))
        continue
      }
      const renderedBy = readTemplateRef(o)
      if (renderedBy !== undefined && formatInstanceRef(renderedBy) !== current) {
        kept.push(`${describeObject(r)} (Template ${formatInstanceRef(renderedBy)})`)
        continue
      }
      // Objects frozen after a revert/strict period still carry our finalizer;
      // drop it so that a manual delete is never stuck in Terminating.
      if ((o.metadata.finalizers ?? []).includes(FINALIZER_RESOURCE)) await this.deps.objects.removeFinalizer(o, FINALIZER_RESOURCE)
      if (o.metadata.deletionTimestamp) {
        missing.push(describeObject(r))
        continue
      }
      if (o.metadata.labels?.[LABEL_SYNC_MODE] !== 'off') {
        const path = await this.deps.objects.path(refOf(o))
        await this.deps.client.request('PATCH', path, {
          body: { metadata: { labels: { [LABEL_SYNC_MODE]: 'off' } } },
          contentType: CONTENT_MERGE,
          query: { fieldManager: `${FIELD_MANAGER}-label` },
        })
      }
    }
    return { missing, kept }
  }
}

/** ParametersValid after every value resolved; names what exposeInStatus could not record because it came from a Secret. */
function parametersResolved(withheld: readonly string[]): ConditionUpdate {
  if (withheld.length === 0) return { type: C.ParametersValid, status: 'True', reason: Reason.AllParametersResolved, message: '' }
  return {
    type: C.ParametersValid,
    status: 'True',
    reason: Reason.SecretNotExposed,
    message:
      `not recorded in status.resolvedParameters despite exposeInStatus: ${withheld.map((n) => JSON.stringify(n)).join(', ')}; ` +
      'values read from Secrets are never written to status',
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

/** The instance's Synced condition says its drift watches were active. */
function syncedBefore(prev: TemplateInstanceStatus): boolean {
  const synced = findCondition(prev.conditions, C.Synced)
  return synced?.status === 'True' && synced.reason === Reason.SyncActive
}

/** How long a reconciler keeps writing trackedGVKs after the API server dropped trackedKinds, before it tries again. */
const TRACKED_KINDS_PROBE_MS = 10 * 60_000

/** The CRD was seen dropping trackedKinds not long ago (it may have been updated since: try again now and then). */
function dropsTrackedKinds(m: Memory, nowMs: number): boolean {
  return m.trackedKindsDroppedAt !== undefined && nowMs - m.trackedKindsDroppedAt < TRACKED_KINDS_PROBE_MS
}

/** Watch keys of parameter sources; a source no API can serve (an invalid apiVersion) has nothing to watch. */
export function sourceWatchKeys(sources: readonly SourceRef[]): string[] {
  return sources.flatMap((s) => {
    try {
      return [collectionKey(s.apiVersion, s.kind, s.namespace)]
    } catch {
      return []
    }
  })
}
