// The TemplateInstance reconcile: resolve, render, gate with a server-side
// dry-run, apply what differs, clean up what is no longer rendered, protect
// against drift (revert/strict) or freeze (off), and report all of it in status.
//
// Drift handling follows "would my apply change anything": the live object is
// compared with a server-side dry-run apply of the desired object, outside
// ignoreFields and server-managed fields, and only a difference is written. A
// cheap pre-check (the last apply's result against the live object from the
// drift watch) skips the dry-run when nothing relevant changed since.

import { createHash } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import type { Logger } from 'pino'
import { syncModeOf, type Template } from '../api/template.ts'
import type { TemplateInstance, TemplateInstanceStatus, ResourceReference } from '../api/templateinstance.ts'
import type { Condition, IdentifiedObject, KubeObject, SourceRef } from '../api/meta.ts'
import {
  ANNOTATION_INSTANCE_REF,
  FIELD_MANAGER,
  FINALIZER_INSTANCE,
  FINALIZER_RESOURCE,
  LABEL_INSTANCE_UID,
  LABEL_SYNC_MODE,
} from '../api/names.ts'
import {
  InstanceConditionType as C,
  Reason,
  setCondition,
  deriveInstancePhase,
  deriveReadyCondition,
  toTimestamp,
  type ConditionUpdate,
} from '../api/conditions.ts'
import { compare } from '../drift/compare.ts'
import type { Change } from '../drift/types.ts'
import type { CompiledIgnore } from '../fieldpath/compile.ts'
import type { IgnoreCache } from '../drift/ignore-cache.ts'
import type { ObjectClient } from '../kube/objects.ts'
import type { KubeClient } from '../kube/client.ts'
import { CONTENT_JSON_PATCH, CONTENT_MERGE } from '../kube/client.ts'
import { KubeApiError } from '../kube/errors.ts'
import type { WatchRegistry } from './registry.ts'
import { preserveIgnoredFields } from './preserve.ts'
import { pointerTokens } from '../fieldpath/pointer.ts'
import { instanceStatusPath, writeStatus } from './status.ts'
import type { RenderPipeline } from './pipeline.ts'
import { collectionKey, describeObject, namespacedKey, objectKey, parseObjectKey, refOf } from '../api/identity.ts'
import {
  legacyTrackedKind,
  legacyTrackedKindsCopied,
  parseTrackedKind,
  trackedKind,
  trackedKindsOf,
} from '../api/templateinstance-kinds.ts'
import {
  DEFAULT_FIGHT_OPTIONS,
  fightStep,
  formatDuration,
  pendingWait,
  type FightEvent,
  type FightOptions,
  type FightState,
  type FightStep,
} from './fight.ts'
import { extractOutputs, outputSourceRefs } from '../outputs/extract.ts'
import { ownershipOf } from '../api/ownership.ts'

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
  /** Shared drift watches, keyed by GVK string. */
  drift: WatchRegistry
  /** Shared parameter-source watches, keyed by collectionKey() (sourceWatchKeys). */
  sources: WatchRegistry
  /** Watches of single objects an instance is in an ownership conflict with, keyed by objectKey(). */
  conflicts: WatchRegistry
  pipeline: RenderPipeline
  /** Compiled ignoreFields per Template (shared with nothing else in this process; forget() on Template delete). */
  ignore: IgnoreCache
  events: EventSink
  log: Logger
  now(): Date
  options?: Partial<InstanceReconcilerOptions>
}

interface AppliedRecord {
  desiredHash: string
  result: IdentifiedObject
}

/** What the reconciler remembers about one instance between reconciles (never persisted). */
interface Memory {
  uid: string
  applied: Map<string, AppliedRecord>
  /** Per object that drifted back after a correction: the backoff state (./fight.ts). */
  fights: Map<string, FightState>
  /**
   * When the API server last dropped status.trackedKinds (a CRD older than the
   * reconciler): until TRACKED_KINDS_PROBE_MS later the list goes to trackedGVKs too.
   */
  trackedKindsDroppedAt: number | undefined
  /** Bumped by parameter-source watch events; part of the render memo key. */
  sourceEpoch: number
  renderMemo?: {
    key: string
    objects: IdentifiedObject[]
    values: Record<string, unknown>
    resolved: NonNullable<TemplateInstanceStatus['resolvedParameters']>
    sources: SourceRef[]
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

/** The most recent writer of the object other than us, from managedFields. */
export function lastOtherManager(obj: IdentifiedObject | undefined): string {
  const entries = obj?.metadata.managedFields ?? []
  let best: { manager: string; time: string } | undefined
  for (const e of entries) {
    if (!e.manager || e.manager === FIELD_MANAGER) continue
    const time = e.time ?? ''
    if (!best || time >= best.time) best = { manager: e.manager, time }
  }
  return best?.manager ?? 'unknown'
}

export class InstanceReconciler {
  private readonly deps: InstanceDeps
  private readonly opts: InstanceReconcilerOptions
  private readonly memory = new Map<string, Memory>()
  private readonly fight: FightOptions

  constructor(deps: InstanceDeps) {
    this.deps = deps
    this.opts = { ...DEFAULT_INSTANCE_OPTIONS, ...(deps.options ?? {}) }
    this.fight = {
      windowMs: this.opts.conflictWindowMs,
      threshold: this.opts.conflictThreshold,
      backoffMs: this.opts.correctionBackoffMs,
      backoffMaxMs: this.opts.correctionBackoffMaxMs,
    }
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
    if (!(inst.metadata.finalizers ?? []).includes(FINALIZER_INSTANCE)) {
      await this.addInstanceFinalizer(inst)
      // The update event re-enqueues us with the finalizer in place.
      return {}
    }
    return this.sync(key, inst)
  }

  private async addInstanceFinalizer(inst: TemplateInstance): Promise<void> {
    const path = instanceStatusPath(inst.metadata?.namespace ?? '', inst.metadata?.name ?? '').replace(/\/status$/, '')
    const finalizers = inst.metadata?.finalizers
    const patch = finalizers
      ? [
          { op: 'test', path: '/metadata/resourceVersion', value: inst.metadata?.resourceVersion },
          { op: 'add', path: '/metadata/finalizers/-', value: FINALIZER_INSTANCE },
        ]
      : [
          { op: 'test', path: '/metadata/resourceVersion', value: inst.metadata?.resourceVersion },
          { op: 'add', path: '/metadata/finalizers', value: [FINALIZER_INSTANCE] },
        ]
    await this.deps.client.request('PATCH', path, { body: patch, contentType: CONTENT_JSON_PATCH })
  }

  /** Every object that carries this instance's UID label, across the tracked kinds. */
  private async ownedObjects(
    inst: TemplateInstance,
    kinds: readonly string[],
    preferCache: boolean,
  ): Promise<{ objects: IdentifiedObject[]; errors: string[] }> {
    const uid = inst.metadata?.uid ?? ''
    const objects: IdentifiedObject[] = []
    const errors: string[] = []
    for (const g of kinds) {
      let apiVersion: string
      let kind: string
      try {
        ;({ apiVersion, kind } = parseTrackedKind(g))
      } catch (e) {
        errors.push(`${g}: ${(e as Error).message}`)
        continue
      }
      const watch = preferCache ? this.deps.drift.get(g) : undefined
      if (watch && this.deps.drift.state(g).synced) {
        for (const o of watch.list()) {
          if (o.metadata?.labels?.[LABEL_INSTANCE_UID] === uid) objects.push({ ...(o as IdentifiedObject), apiVersion, kind })
        }
        continue
      }
      try {
        objects.push(...(await this.deps.objects.list(apiVersion, kind, { labelSelector: `${LABEL_INSTANCE_UID}=${uid}` })))
      } catch (e) {
        errors.push(`${g}: ${apiMessage(e)}`)
      }
    }
    return { objects, errors }
  }

  /** Removes our finalizer and deletes the object, guarded by its UID. */
  private async deleteOwned(obj: IdentifiedObject): Promise<void> {
    const ref = refOf(obj)
    if ((obj.metadata.finalizers ?? []).includes(FINALIZER_RESOURCE)) await this.deps.objects.removeFinalizer(obj, FINALIZER_RESOURCE)
    if (!obj.metadata.deletionTimestamp) await this.deps.objects.delete(ref, obj.metadata.uid ? { uid: obj.metadata.uid } : {})
  }

  private async finalize(key: string, inst: TemplateInstance): Promise<ReconcileResult> {
    this.releaseWatches(key)
    if (!(inst.metadata?.finalizers ?? []).includes(FINALIZER_INSTANCE)) {
      this.memory.delete(key)
      return {}
    }
    const kinds = trackedKindsOf(inst.status)
    const { objects, errors } = await this.ownedObjects(inst, kinds, false)
    const failures: string[] = [...errors]
    for (const obj of objects) {
      try {
        await this.deleteOwned(obj)
        this.deps.events.normal(inst, 'Deleted', `deleted ${describeObject(refOf(obj))}`)
      } catch (e) {
        failures.push(`${describeObject(refOf(obj))}: ${apiMessage(e)}`)
      }
    }
    if (failures.length > 0) {
      this.deps.events.warning(inst, 'DeleteFailed', `could not delete rendered resources: ${failures.slice(0, 3).join('; ')}`)
      throw new Error(`TemplateInstance ${key}: cleanup incomplete: ${failures.join('; ')}`)
    }
    // Objects removed above vanish once their other finalizers (if any) are gone;
    // confirm nothing of ours is left before letting the instance go.
    const again = await this.ownedObjects(inst, kinds, false)
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

  private async sync(key: string, inst: TemplateInstance): Promise<ReconcileResult> {
    const ns = inst.metadata?.namespace ?? ''
    const name = inst.metadata?.name ?? ''
    const uid = inst.metadata?.uid ?? ''
    const now = this.deps.now()
    const gen = inst.metadata?.generation
    const m = this.mem(key, uid)
    // A copy: the cached status is frozen, and trackedKinds is updated below.
    const prev: TemplateInstanceStatus = { ...(inst.status ?? {}) }
    let conds: readonly Condition[] = prev.conditions ?? []
    const set = (u: ConditionUpdate): void => {
      conds = setCondition(conds, { ...u, ...(gen !== undefined ? { observedGeneration: gen } : {}) }, now)
    }
    const status: TemplateInstanceStatus = { ...prev }
    // status.trackedKinds replaces trackedGVKs: read both, and drop the older
    // field only once the server has stored all of it in the new one.
    const knownKinds = trackedKindsOf(prev)
    if (knownKinds.length > 0) status.trackedKinds = knownKinds
    let confirmed: TemplateInstanceStatus | undefined = inst.status
    const nowMs = now.getTime()
    if (!legacyTrackedKindsCopied(prev)) {
      // Written by an older release: store the list in trackedKinds first, so
      // that this pass can drop trackedGVKs whichever way it ends.
      const moved = await this.persistTrackedKinds(inst, m, prev, status, knownKinds, [], dropsTrackedKinds(m, nowMs) ? undefined : nowMs)
      if (moved.stored) confirmed = moved.stored
    }
    let requeueAfter: number | undefined
    const wake = (ms: number): void => {
      requeueAfter = Math.min(requeueAfter ?? Infinity, ms)
    }
    // Without an explicit result, come back when the earliest wait (a backoff, a recheck) is over.
    const finish = async (result?: ReconcileResult): Promise<ReconcileResult> => {
      // A field the server drops anyway would make every pass a write.
      if (dropsTrackedKinds(m, nowMs)) delete status.trackedKinds
      else if (legacyTrackedKindsCopied(confirmed)) delete status.trackedGVKs
      set(deriveReadyCondition(conds, this.deps.getTemplate(inst.spec.templateRef.namespace, inst.spec.templateRef.name)))
      status.conditions = [...conds]
      status.phase = deriveInstancePhase(conds)
      if (gen !== undefined && status.phase === 'Ready') status.observedGeneration = gen
      await writeStatus(this.deps.client, instanceStatusPath(ns, name), prev as Record<string, unknown>, status as Record<string, unknown>)
      return result ?? (requeueAfter !== undefined ? { requeueAfterMs: requeueAfter } : {})
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
      const missing = await this.maintainFrozen(inst, knownKinds, prev.renderedResources ?? [])
      await this.refreshOutputs(template, inst, status, set, { frozen: true, values: {}, rendered: prev.renderedResources ?? [] })
      set({
        type: C.Synced,
        status: 'False',
        reason: Reason.Frozen,
        message:
          `frozen since ${prev.firstAppliedAt}: sync mode is off` +
          (missing.length > 0 ? `; missing rendered objects (not recreated under off): ${missing.slice(0, 5).join(', ')}` : ''),
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
    if (m.renderMemo?.key === memoKey) {
      desiredRaw = m.renderMemo.objects
      values = m.renderMemo.values
      status.resolvedParameters = m.renderMemo.resolved
    } else {
      const params = await this.deps.pipeline.resolveParameters(template, inst)
      this.deps.sources.setOwnerKeys(key, mode === 'off' ? [] : sourceWatchKeys(params.sources))
      if (!params.ok) {
        set({ type: C.ParametersValid, status: 'False', reason: params.reason, message: params.message })
        return finish()
      }
      set({ type: C.ParametersValid, status: 'True', reason: Reason.AllParametersResolved, message: '' })
      status.resolvedParameters = params.resolved
      const rendered = await this.deps.pipeline.render(template, inst, params.values)
      if (!rendered.ok) {
        set({ type: C.Rendered, status: 'False', reason: rendered.reason, message: rendered.message })
        return finish(rendered.retryAfterMs === undefined ? undefined : { requeueAfterMs: rendered.retryAfterMs })
      }
      desiredRaw = rendered.objects
      values = params.values
      m.renderMemo = { key: memoKey, objects: desiredRaw, values, resolved: params.resolved, sources: params.sources }
    }
    set({ type: C.ParametersValid, status: 'True', reason: Reason.AllParametersResolved, message: '' })
    set({ type: C.Rendered, status: 'True', reason: Reason.Success, message: `${desiredRaw.length} object(s) rendered` })
    status.resolvedTemplateRef = {
      name: ref.name,
      namespace: ref.namespace,
      ...(template.metadata?.generation !== undefined ? { generation: template.metadata.generation } : {}),
    }

    const desired = desiredRaw.map((o) => this.deps.pipeline.stamp(o, { name, namespace: ns, uid }, mode))

    // 5. Persist trackedKinds before any apply, so cleanup can always find what we create.
    const persisted = await this.persistTrackedKinds(
      inst,
      m,
      prev,
      status,
      knownKinds,
      desired,
      dropsTrackedKinds(m, nowMs) ? undefined : nowMs,
    )
    const tracked = persisted.tracked
    if (persisted.stored) confirmed = persisted.stored

    // 6. Drift watches for revert/strict; released under off.
    const guarded = mode === 'revert' || mode === 'strict'
    this.deps.drift.setOwnerKeys(key, guarded ? tracked : [])

    // 7. Plan per object: live state, ownership, whether work is needed.
    interface Plan {
      obj: IdentifiedObject
      key: string
      hash: string
      live: IdentifiedObject | undefined
      intent: IdentifiedObject
      direct: boolean
    }
    const plans: Plan[] = []
    const conflicts: string[] = []
    const conflictKeys: string[] = []
    const terminating: IdentifiedObject[] = []
    const instRef = `${ns}/${name}`
    for (const obj of desired) {
      const rk = objectKey(refOf(obj))
      const hash = hashOf(obj)
      const live = await this.liveObject(obj)
      const verdict = live ? ownershipOf(live, { name, namespace: ns, uid }) : undefined
      if (live && verdict && !verdict.owned) {
        const owner = verdict.ownerUid
        conflicts.push(
          `${describeObject(refOf(obj))} exists and is not managed by this TemplateInstance${owner ? ` (owned by TemplateInstance uid ${owner})` : ''}`,
        )
        conflictKeys.push(rk)
        continue
      }
      if (live?.metadata.deletionTimestamp) {
        terminating.push(live)
        continue
      }
      const rec = m.applied.get(rk)
      const isCorrection = live !== undefined && rec?.desiredHash === hash
      if (isCorrection && compare(rec.result, live, ignore).length === 0) {
        // Back where we left it.
        this.fightEvent(inst, m, rk, obj, { type: 'calm', now: nowMs }, wake)
        continue
      }
      // A correction waiting out its backoff: not even a dry-run before it is due.
      const waiting = isCorrection ? pendingWait(m.fights.get(rk), nowMs, this.fight) : 0
      if (waiting > 0) {
        wake(waiting)
        continue
      }
      // Drift only in fields we set means our apply certainly changes them
      // back: no need to ask the server first. Anything else (new render,
      // fields of other managers) goes through the dry-run.
      const direct = isCorrection && driftOnlyInOwnFields(rec.result, live, obj, ignore)
      plans.push({ obj, key: rk, hash, live, intent: live ? preserveIgnoredFields(obj, live, ignore) : obj, direct })
    }
    // Objects we are in conflict with carry none of our labels, so no drift
    // watch sees them: watch each by name until the conflict ends, so that an
    // adoption annotation (or a delete) is noticed at once.
    this.deps.conflicts.setOwnerKeys(key, conflictKeys)
    if (conflicts.length > 0) {
      set({
        type: C.Applied,
        status: 'False',
        reason: Reason.OwnershipConflict,
        message: `${conflicts.slice(0, 5).join('; ')}. Delete or rename the existing object, or annotate it with ${ANNOTATION_INSTANCE_REF}=${instRef} to let this instance adopt it.`,
      })
      this.deps.events.warning(inst, Reason.OwnershipConflict, conflicts[0] ?? '')
      return finish()
    }

    // A rendered object someone deleted: let it go (release our finalizer); the
    // DELETED event brings us back to re-create it.
    for (const t of terminating) {
      try {
        await this.deps.objects.removeFinalizer(t, FINALIZER_RESOURCE)
        this.deps.events.normal(
          inst,
          'ObjectDeleted',
          `${describeObject(refOf(t))} was deleted outside template-sync; it will be re-created`,
        )
      } catch (e) {
        this.deps.log.warn({ instance: key, object: describeObject(refOf(t)), err: apiMessage(e) }, 'could not release deleted object')
      }
      wake(500)
    }

    // 8. Dry-run gate and drift check: nothing is applied unless every object passes.
    const dry = new Map<string, IdentifiedObject>()
    for (const p of plans) {
      if (p.direct) continue
      try {
        dry.set(p.key, await this.deps.objects.apply(p.intent, { fieldManager: FIELD_MANAGER, force: true, dryRun: true }))
      } catch (e) {
        set({
          type: C.Applied,
          status: 'False',
          reason: Reason.DryRunFailed,
          message: `server-side dry-run of ${describeObject(refOf(p.obj))} failed, nothing was applied: ${apiMessage(e)}`,
        })
        this.deps.events.warning(inst, Reason.DryRunFailed, `${describeObject(refOf(p.obj))}: ${apiMessage(e)}`)
        return finish()
      }
    }

    // 9. Apply what differs; a correction of an object that keeps drifting back waits out its backoff (./fight.ts).
    const applyErrors: string[] = []
    const failedKeys = new Set<string>()
    for (const p of plans) {
      const would = dry.get(p.key)
      const changes: Change[] = p.live
        ? would
          ? compare(p.live, would, ignore)
          : compare(p.live, (m.applied.get(p.key) as AppliedRecord).result, ignore)
        : []
      if (p.live && changes.length === 0) {
        if (would) m.applied.set(p.key, { desiredHash: p.hash, result: would })
        this.fightEvent(inst, m, p.key, p.obj, { type: 'calm', now: nowMs }, wake)
        continue
      }
      const isCorrection = p.live !== undefined && m.applied.get(p.key)?.desiredHash === p.hash
      if (isCorrection) {
        const drifted = this.fightEvent(inst, m, p.key, p.obj, { type: 'drift', now: nowMs, manager: lastOtherManager(p.live) }, wake)
        if (drifted.action && !drifted.action.correct) {
          wake(drifted.action.waitMs)
          continue
        }
      }
      try {
        const result = await this.deps.objects.apply(p.intent, { fieldManager: FIELD_MANAGER, force: true })
        m.applied.set(p.key, { desiredHash: p.hash, result })
        if (isCorrection) {
          const done = this.fightEvent(inst, m, p.key, p.obj, { type: 'corrected', now: this.deps.now().getTime() }, wake)
          const paths = changes
            .slice(0, 10)
            .map((c) => c.path)
            .join(', ')
          const after =
            done.notice?.kind === 'resumed'
              ? ` (after a ${formatDuration(done.notice.waitedMs)} backoff${done.notice.manager ? `: field manager "${done.notice.manager}" keeps changing it` : ''})`
              : ''
          this.deps.events.normal(
            inst,
            'Reverted',
            `reverted drift in ${describeObject(refOf(p.obj))}: ${paths}${changes.length > 10 ? ` and ${changes.length - 10} more` : ''}${after}`,
          )
        } else {
          // A new render or a first apply: whatever fight there was is about something else.
          m.fights.delete(p.key)
          this.deps.events.normal(inst, p.live ? 'Updated' : 'Created', `${p.live ? 'updated' : 'created'} ${describeObject(refOf(p.obj))}`)
        }
      } catch (e) {
        failedKeys.add(p.key)
        applyErrors.push(`${describeObject(refOf(p.obj))}: ${apiMessage(e)}`)
      }
    }
    if (applyErrors.length > 0) {
      set({ type: C.Applied, status: 'False', reason: Reason.ApplyFailed, message: applyErrors.slice(0, 5).join('; ') })
      this.deps.events.warning(inst, Reason.ApplyFailed, applyErrors[0] ?? '')
      status.renderedResources = this.resourceRefs(desired, m, failedKeys)
      wake(5000)
      return finish({ requeueAfterMs: requeueAfter ?? 5000 })
    }

    // 10. Orphans: objects of ours that the render no longer names.
    const desiredKeys = new Set(desired.map((o) => objectKey(refOf(o))))
    for (const k of m.fights.keys()) if (!desiredKeys.has(k)) m.fights.delete(k)
    const owned = await this.ownedObjects(inst, tracked, guarded)
    const failedDeletes: ResourceReference[] = []
    for (const o of owned.objects) {
      const k = objectKey(refOf(o))
      if (desiredKeys.has(k)) continue
      try {
        await this.deleteOwned(o)
        m.applied.delete(k)
        this.deps.events.normal(inst, 'Pruned', `deleted ${describeObject(refOf(o))}: no longer rendered`)
      } catch (e) {
        failedDeletes.push({ ...refOf(o), status: 'Failed' })
        this.deps.events.warning(inst, 'DeleteFailed', `could not delete ${describeObject(refOf(o))}: ${apiMessage(e)}`)
      }
    }
    set({ type: C.Applied, status: 'True', reason: Reason.Success, message: `${desired.length} object(s) applied` })
    status.renderedResources = [...this.resourceRefs(desired, m, new Set()), ...failedDeletes]
    const clean = owned.errors.length === 0 && failedDeletes.length === 0 && terminating.length === 0

    await this.refreshOutputs(template, inst, status, set, { frozen: false, values, rendered: desired.map((o) => refOf(o)) })

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
        wake(2000)
      }
    } else if ([...m.fights.values()].some((f) => f.conflict)) {
      const parts = [...m.fights]
        .filter(([, f]) => f.conflict)
        .slice(0, 5)
        .map(([k, f]) => `field manager "${f.conflict?.manager}" keeps changing ${describeKey(k)}`)
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
        this.deps.events.warning(inst, Reason.WatchFailed, `drift watch not running for ${msg}`)
        this.deps.drift.retryFailed()
        wake(10_000)
      } else if (starting.length > 0) {
        set({
          type: C.Synced,
          status: 'Unknown',
          reason: Reason.SyncPending,
          message: `starting drift watches for ${starting.map((s) => s.key).join(', ')}`,
        })
        wake(250)
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

  /**
   * Feeds one observation of an object to its fight state (./fight.ts) and
   * reports what came of it: the start and the end of a fight as Events, a
   * later look as a requeue.
   */
  private fightEvent(
    inst: TemplateInstance,
    m: Memory,
    key: string,
    obj: IdentifiedObject,
    e: FightEvent,
    wake: (ms: number) => void,
  ): FightStep {
    const r = fightStep(m.fights.get(key), e, this.fight)
    if (r.state) m.fights.set(key, r.state)
    else m.fights.delete(key)
    if (r.recheckMs !== undefined) wake(r.recheckMs)
    const what = describeObject(refOf(obj))
    if (r.notice?.kind === 'conflict') {
      this.deps.events.warning(
        inst,
        Reason.DriftConflict,
        `${what} drifted again right after each of the last ${r.notice.streak} corrections; field manager "${r.notice.manager}" keeps changing it. ` +
          `Corrections continue with backoff: the next in ${formatDuration(r.notice.nextInMs)}, later ones at least every ${formatDuration(this.fight.backoffMaxMs)}`,
      )
    } else if (r.notice?.kind === 'ended') {
      this.deps.events.normal(
        inst,
        'DriftConflictResolved',
        `${what} stayed as rendered for ${formatDuration(r.notice.calmMs)} after the last correction; the fight with field manager "${r.notice.manager}" is over and drift is corrected at once again`,
      )
    }
    return r
  }

  /**
   * Adds the kinds of `desired` to status.trackedKinds and writes them before
   * anything is applied. When the API server drops the field (its CRD predates
   * it), the list is also kept in the older trackedGVKs, which that CRD knows.
   */
  private async persistTrackedKinds(
    inst: TemplateInstance,
    m: Memory,
    prev: TemplateInstanceStatus,
    status: TemplateInstanceStatus,
    known: readonly string[],
    desired: readonly IdentifiedObject[],
    /** Set when trackedKinds is to be written (and checked); undefined while the CRD is known to drop it. */
    probeAt: number | undefined,
  ): Promise<{ tracked: string[]; stored?: TemplateInstanceStatus }> {
    const tracked = [...new Set([...known, ...desired.map((o) => trackedKind(o.apiVersion, o.kind))])].sort()
    status.trackedKinds = tracked
    const legacy = probeAt === undefined ? tracked.map(legacyTrackedKind) : undefined
    if (legacy) status.trackedGVKs = legacy
    const alreadyStored = legacy ? isDeepStrictEqual(legacy, prev.trackedGVKs) : isDeepStrictEqual(tracked, prev.trackedKinds ?? [])
    if (alreadyStored) return { tracked }
    const path = instanceStatusPath(inst.metadata?.namespace ?? '', inst.metadata?.name ?? '')
    const early: TemplateInstanceStatus = { ...prev, trackedKinds: tracked }
    if (status.trackedGVKs) early.trackedGVKs = status.trackedGVKs
    let stored = await writeStatus(this.deps.client, path, prev as Record<string, unknown>, early as Record<string, unknown>)
    if (stored && probeAt !== undefined) m.trackedKindsDroppedAt = Array.isArray(stored.trackedKinds) ? undefined : probeAt
    if (stored && probeAt !== undefined && m.trackedKindsDroppedAt !== undefined) {
      const message =
        'the API server dropped status.trackedKinds: the TemplateInstance CRD is older than the reconciler. ' +
        'Apply the CRDs of this release (charts/template-sync/crds; Helm does not upgrade them); meanwhile the kinds are kept in status.trackedGVKs'
      this.deps.log.error({ instance: path }, message)
      this.deps.events.warning(inst, 'OutdatedCRD', message)
      status.trackedGVKs = tracked.map(legacyTrackedKind)
      early.trackedGVKs = status.trackedGVKs
      stored = (await writeStatus(this.deps.client, path, stored, early as Record<string, unknown>)) ?? stored
    }
    Object.assign(prev, { trackedKinds: tracked }, early.trackedGVKs ? { trackedGVKs: early.trackedGVKs } : {})
    return stored ? { tracked, stored: stored as TemplateInstanceStatus } : { tracked }
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
      live.set(
        objectKey(ref),
        await this.liveObject({
          apiVersion: r.apiVersion,
          kind: r.kind,
          metadata: { name: r.name, ...(r.namespace ? { namespace: r.namespace } : {}) },
        }).catch(() => undefined),
      )
    }
    const out = extractOutputs({
      ...base,
      live: (r) =>
        live.get(objectKey({ apiVersion: r.apiVersion, kind: r.kind, name: r.name, ...(r.namespace ? { namespace: r.namespace } : {}) })),
    })
    if (Object.keys(out.values).length > 0) status.outputs = out.values
    else delete status.outputs
    set({ type: C.OutputsResolved, status: out.condition.status, reason: out.condition.reason, message: out.condition.message })
  }

  private resourceRefs(desired: readonly IdentifiedObject[], m: Memory, failed: Set<string>): ResourceReference[] {
    return desired.map((o) => {
      const r = refOf(o)
      const rec = m.applied.get(objectKey(r))
      const ref: ResourceReference = { ...r }
      const generation = rec?.result.metadata.generation
      if (generation !== undefined) ref.observedGeneration = generation
      if (failed.has(objectKey(r))) ref.status = 'Failed'
      return ref
    })
  }

  /** The live object: from the drift watch when it covers it, then from a conflict watch, else a GET. */
  private async liveObject(obj: IdentifiedObject): Promise<IdentifiedObject | undefined> {
    const g = trackedKind(obj.apiVersion, obj.kind)
    const watch = this.deps.drift.get(g)
    if (watch && this.deps.drift.state(g).synced) {
      const cached = watch.get(obj.metadata.namespace, obj.metadata.name)
      if (cached) return { ...(cached as IdentifiedObject), apiVersion: obj.apiVersion, kind: obj.kind }
      // Not in the label-selected cache: absent, or present without our labels.
    }
    const ck = objectKey(refOf(obj))
    const byName = this.deps.conflicts.get(ck)
    if (byName && this.deps.conflicts.state(ck).synced) {
      const cached = byName.get(obj.metadata.namespace, obj.metadata.name)
      return cached ? { ...(cached as IdentifiedObject), apiVersion: obj.apiVersion, kind: obj.kind } : undefined
    }
    const got = await this.deps.objects.get(refOf(obj))
    return got ? { ...got, apiVersion: obj.apiVersion, kind: obj.kind } : undefined
  }

  /**
   * While frozen: keep the sync-mode label current, drop our finalizer (so a
   * manual delete completes), never recreate, and report which rendered
   * objects are gone.
   */
  private async maintainFrozen(inst: TemplateInstance, gvks: readonly string[], rendered: readonly ResourceReference[]): Promise<string[]> {
    const { objects } = await this.ownedObjects(inst, gvks, false)
    const byKey = new Map(objects.map((o) => [objectKey(refOf(o)), o]))
    const missing: string[] = []
    for (const r of rendered) {
      const o = byKey.get(objectKey(r))
      if (!o) {
        missing.push(describeObject(r))
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
    return missing
  }
}

/** How long a reconciler keeps writing trackedGVKs after the API server dropped trackedKinds, before it tries again. */
const TRACKED_KINDS_PROBE_MS = 10 * 60_000

/** The CRD was seen dropping trackedKinds not long ago (it may have been updated since: try again now and then). */
function dropsTrackedKinds(m: Memory, nowMs: number): boolean {
  return m.trackedKindsDroppedAt !== undefined && nowMs - m.trackedKindsDroppedAt < TRACKED_KINDS_PROBE_MS
}

function describeKey(k: string): string {
  return describeObject(parseObjectKey(k))
}

/** True when every difference between what we applied and what is live lies in a field our intent sets. */
function driftOnlyInOwnFields(
  applied: IdentifiedObject,
  live: IdentifiedObject,
  intent: IdentifiedObject,
  ignore: CompiledIgnore,
): boolean {
  const changes = compare(applied, live, ignore)
  if (changes.length === 0) return false
  return changes.every((c) => c.kind !== 'added' && hasPointer(intent, c.pointer))
}

function hasPointer(obj: unknown, pointer: string): boolean {
  let cur: unknown = obj
  for (const key of pointerTokens(pointer)) {
    if (Array.isArray(cur)) {
      const i = Number(key)
      if (!Number.isInteger(i) || i < 0 || i >= cur.length) return false
      cur = cur[i]
    } else if (cur !== null && typeof cur === 'object' && Object.hasOwn(cur, key)) {
      cur = (cur as Record<string, unknown>)[key]
    } else {
      return false
    }
  }
  return true
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
