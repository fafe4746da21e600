// Production implementations of the reconciler's seams: the render pipeline
// (parameters from the API, namespace policy, Go template or Helm chart
// render, ownership stamp) and the Template validator. Both take the same
// HelmSupport (./helm.ts): one chart fetcher and one render pool per process.

import type { Template } from '../api/template.ts'
import type { TemplateInstance } from '../api/templateinstance.ts'
import { Reason } from '../api/conditions.ts'
import { FINALIZER_RESOURCE } from '../api/names.ts'
import type { KubeClient } from '../kube/client.ts'
import { RestMapper } from '../kube/discovery.ts'
import type { KubeObject } from '../kube/objects.ts'
import { validateIgnoreFields } from '../fieldpath/compile.ts'
import { ParseError, type ParsedTemplate } from '../gotemplate/index.ts'
import { resolveParameters } from '../render/params.ts'
import { checkTargetNamespace } from '../render/targetns.ts'
import { stampOwnership } from '../render/stamp.ts'
import { renderInstance, compileTemplate } from '../render/render.ts'
import type { ParamValue } from '../render/types.ts'
import type { DryRunCheck, RenderPipeline, TemplateValidator, RenderOutcome } from '../controller/pipeline.ts'
import { apiParameterSources } from './sources.ts'
import {
  checkHelmSource,
  discoveryScope,
  dryRunHelm,
  type HelmSupport,
  renderHelmTemplate,
  validateHelmSpec,
  ValuesTemplateCache,
} from './helm.ts'
import { parseGvkString } from '../render/identity.ts'

/** Parsed bodies, keyed by Template uid and generation (a new generation parses again). */
class TemplateCache {
  private readonly parsed = new Map<string, ParsedTemplate>()
  get(template: Template): ParsedTemplate {
    const key = `${template.metadata?.uid ?? ''}/${template.metadata?.generation ?? 0}/${template.metadata?.namespace ?? ''}/${template.metadata?.name ?? ''}`
    let p = this.parsed.get(key)
    if (!p) {
      p = compileTemplate(template)
      if (this.parsed.size > 2000) this.parsed.clear()
      this.parsed.set(key, p)
    }
    return p
  }
}

function renderWith(
  template: Template,
  instance: TemplateInstance,
  values: Record<string, ParamValue>,
  cache: TemplateCache,
  mapper: RestMapper | undefined,
  unknown: Set<string>,
): RenderOutcome {
  if (template.spec.gotemplate === undefined) {
    return { ok: false, reason: Reason.TemplateExecutionFailed, message: 'the Template has neither spec.gotemplate nor spec.helm' }
  }
  let compiled
  try {
    compiled = cache.get(template)
  } catch (e) {
    return { ok: false, reason: Reason.TemplateExecutionFailed, message: (e as Error).message }
  }
  const result = renderInstance({
    template,
    instance,
    values,
    compiled,
    isNamespaced: (apiVersion, kind) => mapper?.cached(apiVersion, kind)?.namespaced,
  })
  if (!result.ok) return { ok: false, reason: result.reason, message: result.message }
  for (const k of result.unknownKinds) unknown.add(k)
  return { ok: true, objects: result.objects.map((o) => o.object as KubeObject) }
}

export function createRenderPipeline(client: KubeClient, helm: HelmSupport): RenderPipeline {
  const mapper = new RestMapper(client)
  const sources = apiParameterSources(client, mapper)
  const cache = new TemplateCache()
  const valuesCache = new ValuesTemplateCache()
  const scope = discoveryScope(mapper)
  return {
    checkTargetNamespace: (template, namespace, labels) => checkTargetNamespace(template, namespace, labels),
    resolveParameters: async (template, instance) => {
      const r = await resolveParameters({ template, instance, sources })
      const refs = r.sources.map((s) => ({
        apiVersion: s.apiVersion,
        kind: s.kind,
        ...(s.namespace !== undefined ? { namespace: s.namespace } : {}),
        ...(s.name !== undefined ? { name: s.name } : {}),
      }))
      return r.ok
        ? { ok: true, values: r.values, resolved: r.resolved, sources: refs }
        : { ok: false, reason: r.reason, message: r.message, sources: refs }
    },
    render: async (template, instance, values) => {
      if (template.spec.helm !== undefined) {
        return renderHelmTemplate(helm, valuesCache, template, instance, values as Record<string, ParamValue>, scope)
      }
      const unknown = new Set<string>()
      const first = renderWith(template, instance, values as Record<string, ParamValue>, cache, mapper, unknown)
      if (!first.ok || unknown.size === 0) return first
      // Learn the scope of kinds seen for the first time, then render again.
      for (const g of unknown) {
        const { apiVersion, kind } = parseGvkString(g)
        await mapper.mapping(apiVersion, kind).catch(() => undefined)
      }
      return renderWith(template, instance, values as Record<string, ParamValue>, cache, mapper, new Set())
    },
    stamp: (obj, owner, mode) => {
      const stamped = stampOwnership(obj, owner, mode) as KubeObject
      // Under off nothing guards the object after the freeze, so it must not
      // carry our finalizer: a manual delete then completes at once instead of
      // waiting for a reconcile that a frozen instance may never run.
      if (mode === 'off') {
        const rest = (stamped.metadata.finalizers ?? []).filter((f) => f !== FINALIZER_RESOURCE)
        if (rest.length > 0) stamped.metadata.finalizers = rest
        else delete stamped.metadata.finalizers
      }
      return stamped
    },
  }
}

export function createTemplateValidator(helm: HelmSupport): TemplateValidator {
  const cache = new TemplateCache()
  const valuesCache = new ValuesTemplateCache()
  const dryRuns = new Map<string, DryRunCheck>()
  return {
    validate(template) {
      if (template.spec.helm !== undefined) {
        const check = validateHelmSpec(valuesCache, template)
        if (!check.ok) return check
      } else {
        try {
          cache.get(template)
        } catch (e) {
          return {
            ok: false,
            reason: Reason.ValidationFailed,
            message: e instanceof ParseError ? e.message : `template does not parse: ${(e as Error).message}`,
          }
        }
      }
      const errors = validateIgnoreFields(template.spec.sync?.ignoreFields ?? [])
      if (errors.length > 0)
        return {
          ok: false,
          reason: Reason.ValidationFailed,
          message: `invalid sync.ignoreFields: ${errors.map((e) => e.message).join('; ')}`,
        }
      return { ok: true }
    },
    async checkSource(template) {
      return template.spec.helm === undefined ? undefined : checkHelmSource(helm, template)
    },
    async dryRun(template) {
      if (template.spec.helm !== undefined) return dryRunHelm(helm, valuesCache, template, dryRuns)
      const params = template.spec.parameters ?? []
      if (params.some((p) => p.value === undefined)) return 'skipped'
      const values: Record<string, ParamValue> = Object.create(null) as Record<string, ParamValue>
      for (const p of params) values[p.name] = p.value as string
      const ns = template.metadata?.namespace ?? 'default'
      const instance: TemplateInstance = {
        metadata: { name: 'dry-run', namespace: ns, labels: {} },
        spec: { templateRef: { name: template.metadata?.name ?? '', namespace: ns } },
      }
      const r = renderWith(template, instance, values, cache, undefined, new Set())
      return r.ok ? { ok: true } : { ok: false, condition: 'DryRunRendered', reason: Reason.RenderFailed, message: r.message }
    },
  }
}
