// The Template reconcile: validation only (the body parses, every
// ignoreFields entry is valid, a Helm chart can be fetched, a dry render with
// literal defaults works), and the finalizer that keeps a Template while
// instances still use it.

import type { Template, TemplateStatus } from '../api/template.ts'
import type { Condition } from '../api/meta.ts'
import { FINALIZER_TEMPLATE } from '../api/names.ts'
import {
  TemplateConditionType as C,
  type GrantRefusal,
  instancesWithinGrants,
  Reason,
  setCondition,
  removeCondition,
  deriveTemplatePhase,
  type ConditionUpdate,
} from '../api/conditions.ts'
import type { KubeClient } from '../kube/client.ts'
import { CONTENT_JSON_PATCH } from '../kube/client.ts'
import { isNotFound } from '../kube/errors.ts'
import { addFinalizerOps, removeFinalizerOps, testResourceVersion } from '../kube/finalizers.ts'
import { templatePath, templateStatusPath, writeStatus } from './status.ts'
import type { SourceCheck, TemplateValidator } from './pipeline.ts'
import type { EventSink, ReconcileResult } from './instance.ts'

export interface TemplateDeps {
  client: KubeClient
  getTemplate(namespace: string, name: string): Template | undefined
  /** Keys (ns/name) of the instances whose templateRef names this Template, or whose objects it last rendered. */
  instancesUsing(namespace: string, name: string): string[]
  /** Instances of this Template refused for reaching beyond their namespace (InstancesWithinGrants). */
  grantRefusals(namespace: string, name: string): GrantRefusal[]
  validator: TemplateValidator
  events: EventSink
  now(): Date
}

/** The conditions a Template reconcile sets, on top of the stored ones. */
class Conditions {
  list: readonly Condition[]
  private readonly generation: number | undefined
  private readonly now: Date

  constructor(tpl: Template, now: Date) {
    this.list = tpl.status?.conditions ?? []
    this.generation = tpl.metadata?.generation
    this.now = now
  }

  set(u: ConditionUpdate): void {
    this.list = setCondition(
      this.list,
      { ...u, ...(this.generation !== undefined ? { observedGeneration: this.generation } : {}) },
      this.now,
    )
  }

  get(type: string): Condition | undefined {
    return this.list.find((c) => c.type === type)
  }

  remove(type: string): void {
    this.list = removeCondition(this.list, type)
  }
}

export class TemplateReconciler {
  private readonly deps: TemplateDeps

  constructor(deps: TemplateDeps) {
    this.deps = deps
  }

  async reconcile(namespace: string, name: string): Promise<ReconcileResult> {
    const tpl = this.deps.getTemplate(namespace, name)
    if (!tpl?.metadata) return {}
    if (tpl.metadata.deletionTimestamp) return this.finalize(tpl)
    if (!(tpl.metadata.finalizers ?? []).includes(FINALIZER_TEMPLATE)) {
      await this.deps.client.request('PATCH', templatePath(namespace, name), {
        body: [testResourceVersion(tpl.metadata.resourceVersion), ...addFinalizerOps(tpl.metadata.finalizers, FINALIZER_TEMPLATE)],
        contentType: CONTENT_JSON_PATCH,
      })
      return {}
    }
    const conds = new Conditions(tpl, this.deps.now())
    const requeueAfterMs = await this.validate(tpl, conds)
    conds.set(instancesWithinGrants(this.deps.grantRefusals(namespace, name)))
    const prev: TemplateStatus = tpl.status ?? {}
    const next: TemplateStatus = { ...prev, conditions: [...conds.list], phase: deriveTemplatePhase(conds.list) }
    if (tpl.metadata.generation !== undefined) next.observedGeneration = tpl.metadata.generation
    await writeStatus(
      this.deps.client,
      templateStatusPath(namespace, name),
      prev as Record<string, unknown>,
      next as Record<string, unknown>,
    )
    return requeueAfterMs === undefined ? {} : { requeueAfterMs }
  }

  /** A Template being deleted keeps its finalizer while instances use it (Deleting=False/DeletionBlocked). */
  private async finalize(tpl: Template): Promise<ReconcileResult> {
    const namespace = tpl.metadata?.namespace ?? ''
    const name = tpl.metadata?.name ?? ''
    const finalizers = tpl.metadata?.finalizers ?? []
    if (!finalizers.includes(FINALIZER_TEMPLATE)) return {}
    const users = this.deps.instancesUsing(namespace, name)
    if (users.length > 0) {
      const conds = new Conditions(tpl, this.deps.now())
      conds.set({
        type: C.Deleting,
        status: 'False',
        reason: Reason.DeletionBlocked,
        message: `Template is used by ${users.length} TemplateInstance(s) (named in spec.templateRef, or their objects were last rendered from it) and cannot be deleted: ${users.slice(0, 5).join(', ')}${users.length > 5 ? ', ...' : ''}`,
      })
      const prev = tpl.status ?? {}
      await writeStatus(
        this.deps.client,
        templateStatusPath(namespace, name),
        prev as Record<string, unknown>,
        {
          ...prev,
          conditions: [...conds.list],
        } as Record<string, unknown>,
      )
      return {}
    }
    try {
      await this.deps.client.request('PATCH', templatePath(namespace, name), {
        body: removeFinalizerOps(finalizers, FINALIZER_TEMPLATE),
        contentType: CONTENT_JSON_PATCH,
      })
    } catch (e) {
      if (!isNotFound(e)) throw e
    }
    return {}
  }

  /**
   * Valid, SourceAccessible and DryRunRendered: the body and ignoreFields
   * parse, a chart's repository answers and has the chart, and a render with
   * the literal defaults works. Returns when to look at the source again.
   */
  private async validate(tpl: Template, conds: Conditions): Promise<number | undefined> {
    const valid = await this.deps.validator.validate(tpl)
    // spec.helm: the chart is fetched first; whether the repository answered is SourceAccessible.
    const source = await this.deps.validator.checkSource(tpl)
    this.sourceAccessible(tpl, source, conds)
    const invalid = !valid.ok
      ? valid
      : source?.ok === false && source.condition === 'Valid'
        ? { reason: Reason.ValidationFailed, message: source.message }
        : undefined
    if (invalid !== undefined) {
      conds.set({ type: C.Valid, status: 'False', reason: invalid.reason, message: invalid.message })
      this.deps.events.warning(tpl, invalid.reason, invalid.message)
    } else if (source?.ok === false) {
      conds.set({ type: C.Valid, status: 'True', reason: Reason.ValidationSucceeded, message: '' })
      conds.set({
        type: C.DryRunRendered,
        status: 'False',
        reason: Reason.DryRunSkipped,
        message: 'the chart could not be fetched (see SourceAccessible); it is rendered once it can be',
      })
    } else {
      await this.dryRun(tpl, conds)
    }
    return source?.ok === false ? source.retryAfterMs : undefined
  }

  private sourceAccessible(tpl: Template, source: SourceCheck | undefined, conds: Conditions): void {
    if (source === undefined) {
      conds.remove(C.SourceAccessible)
    } else if (source.ok) {
      conds.set({ type: C.SourceAccessible, status: 'True', reason: Reason.RepositoryReachable, message: source.message })
    } else if (source.condition === 'SourceAccessible') {
      const before = conds.get(C.SourceAccessible)
      conds.set({ type: C.SourceAccessible, status: 'False', reason: Reason.RepositoryUnreachable, message: source.message })
      if (before?.status !== 'False' || before.message !== source.message) {
        this.deps.events.warning(tpl, Reason.RepositoryUnreachable, source.message)
      }
    } else {
      conds.set({
        type: C.SourceAccessible,
        status: 'True',
        reason: Reason.RepositoryReachable,
        message: 'the repository answered, but the chart it names cannot be used (see Valid)',
      })
    }
  }

  /**
   * A render with the literal defaults (DryRunRendered); a failure that makes
   * the spec invalid goes to Valid, and a time-out keeps its reason on both.
   */
  private async dryRun(tpl: Template, conds: Conditions): Promise<void> {
    const dry = await this.deps.validator.dryRun(tpl)
    if (dry !== 'skipped' && !dry.ok && dry.condition === 'Valid') {
      const reason = dry.reason === Reason.RenderTimeout ? Reason.RenderTimeout : Reason.RenderFailed
      conds.set({ type: C.Valid, status: 'False', reason: dry.reason, message: dry.message })
      conds.set({ type: C.DryRunRendered, status: 'False', reason, message: dry.message })
      this.deps.events.warning(tpl, dry.reason, dry.message)
      return
    }
    conds.set({ type: C.Valid, status: 'True', reason: Reason.ValidationSucceeded, message: '' })
    if (dry === 'skipped') {
      conds.set({
        type: C.DryRunRendered,
        status: 'False',
        reason: Reason.DryRunSkipped,
        message: 'some parameters have no literal default; the first render happens per instance',
      })
    } else if (dry.ok) {
      conds.set({ type: C.DryRunRendered, status: 'True', reason: Reason.RenderSucceeded, message: '' })
    } else {
      conds.set({ type: C.DryRunRendered, status: 'False', reason: Reason.RenderFailed, message: dry.message })
    }
  }
}
