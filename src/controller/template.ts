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
import { templateStatusPath, writeStatus } from './status.ts'
import type { TemplateValidator } from './pipeline.ts'
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

function objectPath(ns: string, name: string): string {
  return templateStatusPath(ns, name).replace(/\/status$/, '')
}

export class TemplateReconciler {
  private readonly deps: TemplateDeps

  constructor(deps: TemplateDeps) {
    this.deps = deps
  }

  async reconcile(namespace: string, name: string): Promise<ReconcileResult> {
    const tpl = this.deps.getTemplate(namespace, name)
    if (!tpl?.metadata) return {}
    const finalizers = tpl.metadata.finalizers ?? []
    const users = this.deps.instancesUsing(namespace, name)
    const now = this.deps.now()
    const gen = tpl.metadata.generation
    const prev: TemplateStatus = tpl.status ?? {}
    let conds: readonly Condition[] = prev.conditions ?? []
    const set = (u: ConditionUpdate): void => {
      conds = setCondition(conds, { ...u, ...(gen !== undefined ? { observedGeneration: gen } : {}) }, now)
    }

    if (tpl.metadata.deletionTimestamp) {
      if (!finalizers.includes(FINALIZER_TEMPLATE)) return {}
      if (users.length > 0) {
        set({
          type: C.Deleting,
          status: 'False',
          reason: Reason.DeletionBlocked,
          message: `Template is used by ${users.length} TemplateInstance(s) (named in spec.templateRef, or their objects were last rendered from it) and cannot be deleted: ${users.slice(0, 5).join(', ')}${users.length > 5 ? ', ...' : ''}`,
        })
        await writeStatus(
          this.deps.client,
          templateStatusPath(namespace, name),
          prev as Record<string, unknown>,
          { ...prev, conditions: [...conds] } as Record<string, unknown>,
        )
        return {}
      }
      const idx = finalizers.indexOf(FINALIZER_TEMPLATE)
      try {
        await this.deps.client.request('PATCH', objectPath(namespace, name), {
          body: [
            { op: 'test', path: `/metadata/finalizers/${idx}`, value: FINALIZER_TEMPLATE },
            { op: 'remove', path: `/metadata/finalizers/${idx}` },
          ],
          contentType: CONTENT_JSON_PATCH,
        })
      } catch (e) {
        if (!isNotFound(e)) throw e
      }
      return {}
    }

    if (!finalizers.includes(FINALIZER_TEMPLATE)) {
      await this.deps.client.request('PATCH', objectPath(namespace, name), {
        body: [
          { op: 'test', path: '/metadata/resourceVersion', value: tpl.metadata.resourceVersion },
          tpl.metadata.finalizers
            ? { op: 'add', path: '/metadata/finalizers/-', value: FINALIZER_TEMPLATE }
            : { op: 'add', path: '/metadata/finalizers', value: [FINALIZER_TEMPLATE] },
        ],
        contentType: CONTENT_JSON_PATCH,
      })
      return {}
    }

    const previous = (type: string): Condition | undefined => conds.find((c) => c.type === type)
    const valid = this.deps.validator.validate(tpl)
    // spec.helm: the chart is fetched first; whether the repository answered is SourceAccessible.
    const source = await this.deps.validator.checkSource(tpl)
    let requeueAfterMs: number | undefined
    if (source === undefined) {
      conds = removeCondition(conds, C.SourceAccessible)
    } else if (source.ok) {
      set({ type: C.SourceAccessible, status: 'True', reason: Reason.RepositoryReachable, message: source.message })
    } else {
      requeueAfterMs = source.retryAfterMs
      if (source.condition === 'SourceAccessible') {
        const before = previous(C.SourceAccessible)
        set({ type: C.SourceAccessible, status: 'False', reason: Reason.RepositoryUnreachable, message: source.message })
        if (before?.status !== 'False' || before.message !== source.message) {
          this.deps.events.warning(tpl, Reason.RepositoryUnreachable, source.message)
        }
      } else {
        set({
          type: C.SourceAccessible,
          status: 'True',
          reason: Reason.RepositoryReachable,
          message: 'the repository answered, but the chart it names cannot be used (see Valid)',
        })
      }
    }
    const invalid = !valid.ok
      ? valid
      : source?.ok === false && source.condition === 'Valid'
        ? { reason: Reason.ValidationFailed, message: source.message }
        : undefined
    if (invalid !== undefined) {
      set({ type: C.Valid, status: 'False', reason: invalid.reason, message: invalid.message })
      this.deps.events.warning(tpl, invalid.reason, invalid.message)
    } else if (source?.ok === false) {
      set({ type: C.Valid, status: 'True', reason: Reason.ValidationSucceeded, message: '' })
      set({
        type: C.DryRunRendered,
        status: 'False',
        reason: Reason.DryRunSkipped,
        message: 'the chart could not be fetched (see SourceAccessible); it is rendered once it can be',
      })
    } else {
      const dry = await this.deps.validator.dryRun(tpl)
      if (dry !== 'skipped' && !dry.ok && dry.condition === 'Valid') {
        set({ type: C.Valid, status: 'False', reason: dry.reason, message: dry.message })
        set({ type: C.DryRunRendered, status: 'False', reason: Reason.RenderFailed, message: dry.message })
        this.deps.events.warning(tpl, dry.reason, dry.message)
      } else {
        set({ type: C.Valid, status: 'True', reason: Reason.ValidationSucceeded, message: '' })
        if (dry === 'skipped') {
          set({
            type: C.DryRunRendered,
            status: 'False',
            reason: Reason.DryRunSkipped,
            message: 'some parameters have no literal default; the first render happens per instance',
          })
        } else if (dry.ok) {
          set({ type: C.DryRunRendered, status: 'True', reason: Reason.RenderSucceeded, message: '' })
        } else {
          set({ type: C.DryRunRendered, status: 'False', reason: Reason.RenderFailed, message: dry.message })
        }
      }
    }
    set(instancesWithinGrants(this.deps.grantRefusals(namespace, name)))
    const next: TemplateStatus = { ...prev, conditions: [...conds], phase: deriveTemplatePhase(conds) }
    if (gen !== undefined) next.observedGeneration = gen
    await writeStatus(
      this.deps.client,
      templateStatusPath(namespace, name),
      prev as Record<string, unknown>,
      next as Record<string, unknown>,
    )
    return requeueAfterMs === undefined ? {} : { requeueAfterMs }
  }
}
