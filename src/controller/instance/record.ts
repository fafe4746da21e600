// InstanceRecord: the one owner of every write to a TemplateInstance during a
// pass. Steps set conditions, change set entries, Event notes and wake-ups on
// it; it makes the writes: the patch that records the tracked kinds with our
// finalizer (before the first apply, so that cleanup always finds what we
// create), the migration of an older release's trackedGVKs, the single status
// write at the end (flush, or flushFailure when the pass threw), the check that
// the CRD kept trackedKinds, and the removal of our finalizer at the end of a
// cleanup. A status the API server refuses as too large is written again
// without parameter values and outputs, so that the conditions get through.
// It remembers its own writes while the cache has not delivered them
// (memory.ts RecordMemory), so that the next pass does not write the same
// again. Nothing else writes the instance (`npm run lint` checks it).

import { isDeepStrictEqual } from 'node:util'
import type { Logger } from 'pino'
import {
  type ConditionUpdate,
  deriveInstancePhase,
  deriveReadyCondition,
  findCondition,
  InstanceConditionType as C,
  Reason,
  setCondition,
  type TemplateForReady,
} from '../../api/conditions.ts'
import type { Condition } from '../../api/meta.ts'
import { ANNOTATION_TRACKED_KINDS, FINALIZER_INSTANCE } from '../../api/names.ts'
import type { TemplateInstance, TemplateInstanceStatus } from '../../api/templateinstance.ts'
import {
  legacyTrackedKind,
  legacyTrackedKindsCopied,
  parseTrackedKindsAnnotation,
  trackedKindsAnnotation,
  trackedKindsOf,
} from '../../api/templateinstance-kinds.ts'
import type { ChangeSet } from '../../apply/changeset.ts'
import type { FightOptions } from '../../apply/fight.ts'
import { escapeToken } from '../../fieldpath/pointer.ts'
import { CONTENT_JSON_PATCH, type KubeClient } from '../../kube/client.ts'
import { errorWithStatus, isNotFound, isTooLarge } from '../../kube/errors.ts'
import { addFinalizerOps, type JsonPatchOp, removeFinalizerOps, testResourceVersion } from '../../kube/finalizers.ts'
import { NO_REDACTION, type Redact } from '../../render/redact.ts'
import { type EventNote, eventsFor } from '../report.ts'
import { instancePath, instanceStatusPath, writeStatusVersioned } from '../status.ts'
import { type ChangeMetrics, countChanges } from '../metrics.ts'
import type { RecordMemory } from './memory.ts'
import type { EventSink, ReconcileResult } from './types.ts'

type Versioned = NonNullable<Awaited<ReturnType<typeof writeStatusVersioned>>>

export interface RecordDeps {
  readonly client: KubeClient
  readonly events: EventSink
  readonly log: Logger
  /** How corrections under a fight are worded in Events. */
  readonly fight: FightOptions
  /** Counts what the pass did (corrections, fights, failed requests). */
  readonly metrics?: ChangeMetrics
}

/** How long a reconciler keeps writing trackedGVKs after the API server dropped trackedKinds, before it tries again. */
const TRACKED_KINDS_PROBE_MS = 10 * 60_000

/** The status a pass starts from: our last write while the cache has not delivered it, else the cached one. */
export function statusBase(inst: TemplateInstance, memory: RecordMemory): TemplateInstanceStatus {
  const w = memory.written
  if (w?.overRvs.includes(inst.metadata?.resourceVersion ?? '')) return w.status
  delete memory.written
  return inst.status ?? {}
}

export class InstanceRecord {
  /** The status the pass started from (a copy; the migration updates it). */
  readonly prev: TemplateInstanceStatus
  /** The status the pass will write. */
  readonly status: TemplateInstanceStatus
  conditions: readonly Condition[]
  readonly changes: ChangeSet = []
  /** Events about the pass as a whole (conflicts, a rejected render, failed applies, watches). */
  readonly notes: EventNote[] = []
  requeueAfterMs: number | undefined
  /** Takes the values read from Secrets out of every text the pass sends out (src/render/redact.ts). */
  redact: Redact = NO_REDACTION
  /** What the pass is doing, in words ("rendering"), for the condition of a pass that fails (flushFailure). */
  stage = 'starting'
  /** Every kind the instance is known to have rendered: status, then our annotation. */
  readonly knownKinds: readonly string[]
  private readonly deps: RecordDeps
  private readonly inst: TemplateInstance
  private readonly memory: RecordMemory
  /** The instant of the pass: conditions, plans and firstAppliedAt all read it. */
  readonly now: Date
  private readonly nowMs: number
  /** The resourceVersion the pass read, then those our writes gave the instance. */
  private readonly overRvs: string[]
  /** The finalizer and the tracked-kinds annotation as the instance holds them (from our patch while the cache lags). */
  private readonly onInstance: { finalizer: boolean; annotated: boolean; kinds: readonly string[] }
  /** The status as the API server last confirmed it in this pass. */
  private confirmed: TemplateInstanceStatus | undefined

  constructor(deps: RecordDeps, inst: TemplateInstance, memory: RecordMemory, now: Date) {
    this.deps = deps
    this.inst = inst
    this.memory = memory
    this.now = now
    this.nowMs = now.getTime()
    const base = statusBase(inst, memory)
    // Copies: the cached status is frozen, and both are changed below.
    this.prev = { ...base }
    this.status = { ...base }
    this.conditions = base.conditions ?? []
    this.confirmed = this.prev
    this.overRvs = [inst.metadata?.resourceVersion ?? '']
    const recorded = memory.recorded?.overRvs.includes(this.overRvs[0] ?? '') ? memory.recorded : undefined
    if (!recorded) delete memory.recorded
    const annotations = inst.metadata?.annotations
    this.onInstance = {
      finalizer: recorded !== undefined || (inst.metadata?.finalizers ?? []).includes(FINALIZER_INSTANCE),
      annotated: recorded !== undefined || annotations !== undefined,
      kinds: recorded ? recorded.kinds : parseTrackedKindsAnnotation(annotations?.[ANNOTATION_TRACKED_KINDS]),
    }
    // status.trackedKinds replaces trackedGVKs: read both, and drop the older
    // field only once the server has stored all of it in the new one. The
    // annotation may hold kinds of a pass that ended before its status write.
    this.knownKinds = [...new Set([...trackedKindsOf(this.prev), ...this.onInstance.kinds])].sort()
    if (this.knownKinds.length > 0) this.status.trackedKinds = [...this.knownKinds]
  }

  set(u: ConditionUpdate): void {
    const generation = this.inst.metadata?.generation
    const observed = generation !== undefined ? { observedGeneration: generation } : {}
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

  /** The CRD was seen dropping trackedKinds not long ago (it may have been updated since: try again now and then). */
  dropsTrackedKinds(): boolean {
    const at = this.memory.trackedKindsDroppedAt
    return at !== undefined && this.nowMs - at < TRACKED_KINDS_PROBE_MS
  }

  /**
   * Kinds an older release recorded in trackedGVKs go to trackedKinds before
   * anything else, so that this pass can drop the older field whichever way
   * it ends. While the CRD is known to drop trackedKinds, the list stays in
   * trackedGVKs too.
   */
  async migrateLegacyKinds(): Promise<void> {
    if (legacyTrackedKindsCopied(this.prev)) return
    const known = this.knownKinds
    const probing = !this.dropsTrackedKinds()
    const legacy = probing ? undefined : known.map(legacyTrackedKind)
    if (legacy) this.status.trackedGVKs = legacy
    const alreadyStored = legacy ? isDeepStrictEqual(legacy, this.prev.trackedGVKs) : isDeepStrictEqual(known, this.prev.trackedKinds ?? [])
    if (alreadyStored) return
    const early: TemplateInstanceStatus = { ...this.prev, trackedKinds: [...known], ...(legacy ? { trackedGVKs: legacy } : {}) }
    const first = await this.writeStatus(this.prev, early)
    let stored = first?.status
    if (first && probing) {
      const again = await this.checkTrackedKindsStored(first.status, early)
      if (again) stored = again.status
      if (early.trackedGVKs) this.status.trackedGVKs = early.trackedGVKs
    }
    Object.assign(this.prev, { trackedKinds: [...known] }, early.trackedGVKs ? { trackedGVKs: early.trackedGVKs } : {})
    if (stored) this.confirmed = stored as TemplateInstanceStatus
  }

  /**
   * Records `kinds` in the tracked-kinds annotation and adds our finalizer
   * when it is missing, in one JSON patch over the newest version we know,
   * unless the instance holds both already.
   */
  async recordKinds(kinds: readonly string[]): Promise<void> {
    const on = this.onInstance
    if (on.finalizer && kinds.every((k) => on.kinds.includes(k))) return
    const all = [...new Set([...on.kinds, ...kinds])].sort()
    const patch: JsonPatchOp[] = [testResourceVersion(this.overRvs.at(-1))]
    if (!on.finalizer) patch.push(...addFinalizerOps(this.inst.metadata?.finalizers, FINALIZER_INSTANCE))
    if (all.length > 0) {
      const value = trackedKindsAnnotation(all)
      patch.push(
        on.annotated
          ? { op: 'add', path: `/metadata/annotations/${escapeToken(ANNOTATION_TRACKED_KINDS)}`, value }
          : { op: 'add', path: '/metadata/annotations', value: { [ANNOTATION_TRACKED_KINDS]: value } },
      )
    }
    const stored = await this.deps.client.request<TemplateInstance>('PATCH', this.path(), { body: patch, contentType: CONTENT_JSON_PATCH })
    this.memory.recorded = { overRvs: [...this.overRvs], kinds: all }
    this.overRvs.push(stored?.metadata?.resourceVersion ?? '')
    Object.assign(on, { finalizer: true, annotated: on.annotated || all.length > 0, kinds: all })
  }

  /**
   * The end of a pass: our finalizer (every instance carries it, also one that
   * applied nothing), Ready and the phase from the conditions, the Events, and
   * the one status write. `template` is the one the instance names, for Ready.
   */
  async flush(template: TemplateForReady | undefined, result?: ReconcileResult): Promise<ReconcileResult> {
    if (!this.onInstance.finalizer) await this.recordKinds(this.knownKinds)
    const status = this.status
    // A field the server drops anyway would make every pass a write.
    if (this.dropsTrackedKinds()) delete status.trackedKinds
    else if (legacyTrackedKindsCopied(this.confirmed)) delete status.trackedGVKs
    this.set(deriveReadyCondition(this.conditions, template))
    status.conditions = [...this.conditions]
    status.phase = deriveInstancePhase(this.conditions)
    const gen = this.inst.metadata?.generation
    if (gen !== undefined && status.phase === 'Ready') status.observedGeneration = gen
    this.emitEvents()
    const sendsKinds = status.trackedKinds !== undefined && !isDeepStrictEqual(status.trackedKinds, this.prev.trackedKinds ?? [])
    this.stage = 'writing the status'
    const stored = await this.writeWithinLimit(status)
    if (stored && sendsKinds) await this.checkTrackedKindsStored(stored.status, status)
    return result ?? (this.requeueAfterMs !== undefined ? { requeueAfterMs: this.requeueAfterMs } : {})
  }

  /**
   * The end of a pass that threw: Ready=False/ReconcileError naming what the
   * pass was doing and the error, written with whatever else the pass had
   * set, and a Warning Event. The caller rethrows the pass's error (the work
   * queue retries it with backoff) whether or not this write succeeds.
   */
  async flushFailure(error: unknown): Promise<void> {
    const message = `the pass failed while ${this.stage}: ${errorWithStatus(error)}; it is retried with backoff`
    this.set({ type: C.Ready, status: 'False', reason: Reason.ReconcileError, message })
    this.notes.push({ type: 'Warning', reason: Reason.ReconcileError, message })
    this.status.conditions = [...this.conditions]
    this.status.phase = deriveInstancePhase(this.conditions)
    await this.writeWithinLimit(this.status)
  }

  /**
   * The status write that ends a pass. Refused as too large (an instance
   * whose spec is near the API server's limit), it is made again without the
   * values in resolvedParameters and without outputs, and ParametersValid
   * says so: the conditions must reach the instance.
   */
  private async writeWithinLimit(status: TemplateInstanceStatus): Promise<Versioned | undefined> {
    try {
      return await this.writeStatus(this.prev, status)
    } catch (e) {
      if (!isTooLarge(e)) throw e
      const refused = errorWithStatus(e)
      this.deps.log.warn(
        { instance: this.path(), err: this.redact(refused) },
        'status refused as too large; writing it without parameter values and outputs',
      )
      if (status.resolvedParameters) status.resolvedParameters = status.resolvedParameters.map(({ value: _, ...entry }) => entry)
      delete status.outputs
      if (findCondition(this.conditions, C.ParametersValid)?.status === 'True')
        this.set({
          type: C.ParametersValid,
          status: 'True',
          reason: Reason.StatusTooLarge,
          message: `the API server refused the status as too large (${refused}); it is written without the values in status.resolvedParameters and without status.outputs`,
        })
      status.conditions = [...this.conditions]
      return this.writeStatus(this.prev, status)
    }
  }

  /** Records the pass's Events, once (also when the pass failed half-way). */
  emitEvents(): void {
    const changes = this.changes.splice(0)
    if (this.deps.metrics) countChanges(this.deps.metrics, this.inst.metadata?.namespace ?? '', changes)
    const notes = [...eventsFor(changes, this.deps.fight), ...this.notes.splice(0)]
    for (const n of notes) {
      const message = this.redact(n.message)
      if (n.type === 'Normal') this.deps.events.normal(this.inst, n.reason, message)
      else this.deps.events.warning(this.inst, n.reason, message)
    }
  }

  private path(): string {
    return instancePath(this.inst.metadata?.namespace ?? '', this.inst.metadata?.name ?? '')
  }

  private async writeStatus(current: TemplateInstanceStatus, next: TemplateInstanceStatus): Promise<Versioned | undefined> {
    const path = instanceStatusPath(this.inst.metadata?.namespace ?? '', this.inst.metadata?.name ?? '')
    const stored = await writeStatusVersioned(this.deps.client, path, current as Record<string, unknown>, next as Record<string, unknown>)
    if (stored) {
      this.memory.written = { overRvs: [...this.overRvs], status: stored.status as TemplateInstanceStatus }
      this.overRvs.push(stored.resourceVersion)
    }
    return stored
  }

  /**
   * After a status write that sent trackedKinds: whether the API server kept
   * them. A CRD older than the reconciler drops the field; then the list is
   * written again in the older trackedGVKs, which that CRD knows.
   */
  private async checkTrackedKindsStored(stored: Record<string, unknown>, status: TemplateInstanceStatus): Promise<Versioned | undefined> {
    if (Array.isArray(stored.trackedKinds)) {
      this.memory.trackedKindsDroppedAt = undefined
      return undefined
    }
    this.memory.trackedKindsDroppedAt = this.nowMs
    const message =
      'the API server dropped status.trackedKinds: the TemplateInstance CRD is older than the reconciler. ' +
      'Apply the CRDs of this release (charts/template-sync/crds; Helm does not upgrade them); meanwhile the kinds are kept in status.trackedGVKs'
    this.deps.log.error({ instance: this.path() }, message)
    this.deps.events.warning(this.inst, 'OutdatedCRD', message)
    status.trackedGVKs = (status.trackedKinds ?? []).map(legacyTrackedKind)
    delete status.trackedKinds
    return this.writeStatus(stored as TemplateInstanceStatus, status)
  }
}

/** The end of a cleanup: our finalizer off the instance as it is stored now; gone already is fine. */
export async function releaseInstance(client: KubeClient, inst: TemplateInstance): Promise<void> {
  const path = instancePath(inst.metadata?.namespace ?? '', inst.metadata?.name ?? '')
  const live = await client.getOrUndefined<TemplateInstance>(path)
  const ops = removeFinalizerOps(live?.metadata?.finalizers, FINALIZER_INSTANCE)
  if (ops.length === 0) return
  try {
    await client.request('PATCH', path, { body: ops, contentType: CONTENT_JSON_PATCH })
  } catch (e) {
    if (!isNotFound(e)) throw e
  }
}
