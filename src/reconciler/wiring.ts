// Production implementations of the reconciler's seams: the render pipeline
// (parameters from the API, namespace policy, Go template or Helm chart
// render, ownership stamp) and the Template validator. Both take the same
// HelmSupport (./helm.ts): one chart fetcher and one render pool per process,
// and every user template runs in that pool, never on this thread.

import type { Template } from '../api/template.ts'
import type { TemplateInstance } from '../api/templateinstance.ts'
import { Reason } from '../api/conditions.ts'
import type { KubeClient } from '../kube/client.ts'
import { RestMapper } from '../kube/discovery.ts'
import type { IdentifiedObject } from '../api/meta.ts'
import { stampOwnership } from '../api/ownership.ts'
import { validateIgnoreFields } from '../fieldpath/compile.ts'
import { resolveParameters } from '../render/params.ts'
import { checkTargetNamespace } from '../render/targetns.ts'
import { objectScopeProblem } from '../render/grants.ts'
import { manifestsOf, type RenderFailure } from '../render/render.ts'
import { jobInstance } from '../render/template-job.ts'
import { renderTimeoutMessage, templateSubject } from '../render/time-limit.ts'
import type { ParamValue } from '../render/types.ts'
import type { DryRunCheck, KindRef, RenderPipeline, TemplateValidator, RenderOutcome, TemplateCheck } from '../controller/pipeline.ts'
import { apiParameterSources } from './sources.ts'
import {
  checkHelmSource,
  discoveryScope,
  dryRunFailure,
  dryRunHelm,
  dryRunKey,
  rememberedDryRun,
  type HelmSupport,
  learnScopes,
  parseCheck,
  renderHelmTemplate,
  type ScopeSource,
  validateHelmSpec,
} from './helm.ts'

/** A failed Go template render as the instance reports it; a time-out names the Template and the limit. */
export function gotemplateFailure(template: Pick<Template, 'metadata'>, timeMs: number, failure: RenderFailure): RenderOutcome {
  if (failure.reason !== Reason.RenderTimeout) return { ok: false, reason: failure.reason, message: failure.message }
  return { ok: false, reason: Reason.RenderTimeout, message: renderTimeoutMessage(templateSubject(template), timeMs, failure.message) }
}

/** The gotemplate branch of RenderPipeline.render: executed and decoded in the render pool, checked here. */
async function renderGotemplate(
  helm: HelmSupport,
  template: Template,
  instance: Pick<TemplateInstance, 'metadata'>,
  values: Readonly<Record<string, ParamValue>>,
  scope: ScopeSource,
): Promise<RenderOutcome> {
  const text = template.spec.gotemplate
  if (text === undefined) {
    return { ok: false, reason: Reason.TemplateExecutionFailed, message: 'the Template has neither spec.gotemplate nor spec.helm' }
  }
  const timeMs = helm.limits.timeMs
  const name = template.metadata?.name ?? 'template'
  const out = await helm.runTemplate({ kind: 'manifests', name, text, instance: jobInstance(instance), values, timeMs })
  if (!out.ok) return gotemplateFailure(template, timeMs, out)
  const namespace = instance.metadata?.namespace ?? ''
  const lookup = (apiVersion: string, kind: string): boolean | undefined => scope.namespaced(apiVersion, kind)
  let result = manifestsOf(out.documents, namespace, lookup)
  // Learn the scope of kinds seen for the first time; the template need not run again.
  if (result.ok && (await learnScopes(scope, result.unknownKinds))) result = manifestsOf(out.documents, namespace, lookup)
  if (!result.ok) return { ok: false, reason: result.reason, message: result.message }
  return { ok: true, objects: result.objects.map((o) => o.object as IdentifiedObject) }
}

export function createRenderPipeline(client: KubeClient, helm: HelmSupport): RenderPipeline {
  const mapper = new RestMapper(client)
  const sources = apiParameterSources(client, mapper)
  const scope = discoveryScope(mapper)
  const renderObjects = async (
    template: Template,
    instance: TemplateInstance,
    values: Record<string, ParamValue>,
  ): Promise<RenderOutcome> =>
    template.spec.helm !== undefined
      ? renderHelmTemplate(helm, template, instance, values, scope)
      : renderGotemplate(helm, template, instance, values, scope)
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

/** The body parses: spec.gotemplate, or spec.helm's valuesTemplate. */
async function bodyCheck(helm: HelmSupport, template: Template): Promise<TemplateCheck> {
  if (template.spec.helm !== undefined) return validateHelmSpec(helm, template)
  const text = template.spec.gotemplate
  const subject = templateSubject(template)
  if (text === undefined) return { ok: false, reason: Reason.ValidationFailed, message: `${subject} has no spec.gotemplate` }
  return parseCheck(helm, subject, template.metadata?.name ?? 'template', text)
}

/** A dry render with every parameter's literal default, as instance "dry-run" in the Template's namespace. */
async function dryRunGotemplate(helm: HelmSupport, template: Template): Promise<DryRunCheck> {
  const params = template.spec.parameters ?? []
  if (params.some((p) => p.value === undefined)) return 'skipped'
  const values: Record<string, ParamValue> = Object.create(null) as Record<string, ParamValue>
  for (const p of params) values[p.name] = p.value as string
  const ns = template.metadata?.namespace ?? 'default'
  const instance = { metadata: { name: 'dry-run', namespace: ns, labels: {} } }
  // Scopes stay unknown: a dry run has no instance namespace to default to.
  const r = await renderGotemplate(helm, template, instance, values, { namespaced: () => undefined })
  return r.ok ? { ok: true } : dryRunFailure(r.reason, r.message)
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
  // Results by Template uid and generation (and chart digest): a status-only update renders nothing again.
  const dryRuns = new Map<string, DryRunCheck>()
  return {
    async validate(template) {
      const body = await bodyCheck(helm, template)
      if (!body.ok) return body
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
      if (template.spec.helm !== undefined) return dryRunHelm(helm, template, dryRuns)
      return rememberedDryRun(dryRuns, dryRunKey(template), () => dryRunGotemplate(helm, template))
    },
  }
}
