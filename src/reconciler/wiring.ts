// Production implementations of the reconciler's seams: the render pipeline
// (parameters from the API, namespace policy, Go template or Helm chart
// render, ownership stamp) and the Template validator. Both take the same
// HelmSupport (./helm.ts): one chart fetcher and one render pool per process.

import type { Template } from '../api/template.ts'
import type { TemplateInstance } from '../api/templateinstance.ts'
import { Reason } from '../api/conditions.ts'
import type { KubeClient } from '../kube/client.ts'
import { RestMapper } from '../kube/discovery.ts'
import type { IdentifiedObject } from '../api/meta.ts'
import { stampOwnership } from '../api/ownership.ts'
import { validateIgnoreFields } from '../fieldpath/compile.ts'
import { ParseError, type ParsedTemplate } from '../gotemplate/index.ts'
import { resolveParameters } from '../render/params.ts'
import { checkTargetNamespace } from '../render/targetns.ts'
import { objectScopeProblem } from '../render/grants.ts'
import { renderInstance, compileTemplate } from '../render/render.ts'
import type { ParamValue } from '../render/types.ts'
import type { DryRunCheck, KindRef, RenderPipeline, TemplateValidator, RenderOutcome } from '../controller/pipeline.ts'
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
import { parseGvkString } from '../api/identity.ts'

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
  return { ok: true, objects: result.objects.map((o) => o.object as IdentifiedObject) }
}

export function createRenderPipeline(client: KubeClient, helm: HelmSupport): RenderPipeline {
  const mapper = new RestMapper(client)
  const sources = apiParameterSources(client, mapper)
  const cache = new TemplateCache()
  const valuesCache = new ValuesTemplateCache()
  const scope = discoveryScope(mapper)
  const renderObjects = async (
    template: Template,
    instance: TemplateInstance,
    values: Record<string, ParamValue>,
  ): Promise<RenderOutcome> => {
    if (template.spec.helm !== undefined) return renderHelmTemplate(helm, valuesCache, template, instance, values, scope)
    const unknown = new Set<string>()
    const first = renderWith(template, instance, values, cache, mapper, unknown)
    if (!first.ok || unknown.size === 0) return first
    // Learn the scope of kinds seen for the first time, then render again.
    for (const g of unknown) {
      const { apiVersion, kind } = parseGvkString(g)
      await mapper.mapping(apiVersion, kind).catch(() => undefined)
    }
    return renderWith(template, instance, values, cache, mapper, new Set())
  }
  return {
    checkTargetNamespace: (template, namespace, labels) => checkTargetNamespace(template, namespace, labels),
    resolveParameters: async (template, instance) => {
      const r = await resolveParameters({ template, instance, sources })
      return r.ok
        ? { ok: true, values: r.values, resolved: r.resolved, sources: r.sources, withheld: r.withheld, secretValues: r.secretValues }
        : { ok: false, reason: r.reason, message: r.message, sources: r.sources }
    },
    render: async (template, instance, values) => {
      const rendered = await renderObjects(template, instance, values as Record<string, ParamValue>)
      if (!rendered.ok) return rendered
      // An object of a kind not served has no known scope: nothing is checked or applied until it is.
      // Read from the cache the render used, at once: a kind served since would not match how it rendered.
      const unserved = unservedKinds(mapper, rendered.objects)
      if (unserved.length > 0) return { ...rendered, unserved }
      // Every kind was looked up while rendering (namespace defaulting), so the scopes are cached.
      const problem = objectScopeProblem(
        template,
        instance.metadata?.namespace ?? '',
        rendered.objects.map((object) => ({ object, namespaced: mapper.cached(object.apiVersion, object.kind)?.namespaced })),
      )
      return problem === undefined ? rendered : { ok: false, reason: Reason.ObjectForbidden, message: problem }
    },
    stamp: (obj, owner, mode, template) => stampOwnership(obj, owner, mode, template),
    discoveryChanged: (group) => mapper.invalidateGroup(group),
  }
}

/**
 * The distinct kinds of `objects` the render found no scope for, in render
 * order: every kind was looked up while rendering (namespace defaulting), so
 * one the cache does not hold was not served when the render asked.
 */
function unservedKinds(mapper: RestMapper, objects: readonly IdentifiedObject[]): KindRef[] {
  const out: KindRef[] = []
  const seen = new Set<string>()
  for (const { apiVersion, kind } of objects) {
    const id = `${apiVersion} ${kind}`
    if (seen.has(id) || mapper.cached(apiVersion, kind) !== undefined) continue
    seen.add(id)
    out.push({ apiVersion, kind })
  }
  return out
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
