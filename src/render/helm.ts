// The spec.helm source of the render pipeline: valuesTemplate -> the chart
// rendered as `helm template --include-crds` -> manifests, checked and
// namespace-defaulted like gotemplate output (manifests.ts). Fetching the
// chart, reading the cluster's capabilities and running the engine are
// passed in; nothing here does I/O. See docs/helm-templates.md.

import type { ObjectMeta } from '../api/meta.ts'
import { DEFAULT_HELM_VERSION, type HelmRepository, type HelmVersion, type Template } from '../api/template.ts'
import type { Chart } from '../helm/chart/types.ts'
import type { HelmCapabilities, HelmRenderInput, HelmRenderLimits, HelmRenderResult } from '../helm/render/index.ts'
import { DEFAULT_RENDER_LIMITS, HelmRenderError } from '../helm/render/index.ts'
import { displayUrl } from '../encoding/url.ts'
import { ManifestError, type RenderedObject, type ScopeLookup, toRenderedObjects } from './manifests.ts'
import type { RenderFailure } from './render.ts'
import { jobInstance, type TemplateRunner } from './template-job.ts'
import { ChartRenderTimeout, renderTimeoutMessage, templateSubject } from './time-limit.ts'
import type { ParamValue } from './types.ts'
import { VALUES_TEMPLATE_NAME } from './values-template.ts'

export function helmVersionOf(template: Pick<Template, 'spec'>): HelmVersion {
  return template.spec.helm?.version ?? DEFAULT_HELM_VERSION
}

/** spec.helm.releaseName, else the TemplateInstance's name (as the Template Operator does). */
export function releaseNameOf(template: Pick<Template, 'spec'>, instance: { readonly metadata?: ObjectMeta }): string {
  return template.spec.helm?.releaseName ?? instance.metadata?.name ?? ''
}

/** `chart web 1.2.0 from oci://registry.example.com/charts`: how messages name a chart (never with credentials). */
export function describeChart(repository: Pick<HelmRepository, 'url' | 'name' | 'version'>): string {
  return `chart ${repository.name} ${repository.version} from ${displayUrl(repository.url)}`
}

/** Runs the engine (renderChart, in a worker or inline); rejects with HelmRenderError, or ChartRenderTimeout at the time limit. */
export type ChartRenderFn = (input: HelmRenderInput) => Promise<HelmRenderResult>

export interface HelmRenderRequest {
  readonly template: Pick<Template, 'metadata' | 'spec'>
  readonly instance: { readonly metadata?: ObjectMeta }
  /** Resolved parameters, the context of valuesTemplate. */
  readonly values: Readonly<Record<string, ParamValue>>
  /** Runs the valuesTemplate (in the render pool, or inline). */
  readonly runTemplate: TemplateRunner
  readonly chart: Chart
  readonly capabilities: HelmCapabilities
  readonly render: ChartRenderFn
  /** The chart's limits; timeMs is the valuesTemplate's too. */
  readonly limits?: Partial<HelmRenderLimits>
}

export type HelmRenderOutcome =
  | { readonly ok: true; readonly result: HelmRenderResult }
  | (RenderFailure & {
      /** The engine's HelmRenderCode; undefined when valuesTemplate failed or the time limit stopped the chart. */
      readonly code?: string
    })

/** valuesTemplate, then the chart with those values; a failure names the chart, the template file and the line. */
export async function renderHelmChart(req: HelmRenderRequest): Promise<HelmRenderOutcome> {
  const helm = req.template.spec.helm
  if (helm === undefined) throw new Error('renderHelmChart: the Template has no spec.helm')
  const timeMs = req.limits?.timeMs ?? DEFAULT_RENDER_LIMITS.timeMs
  const subject = templateSubject(req.template)
  const values =
    helm.valuesTemplate === undefined
      ? { ok: true as const, values: {} }
      : await req.runTemplate({
          kind: 'values',
          text: helm.valuesTemplate,
          instance: jobInstance(req.instance),
          values: req.values,
          timeMs,
        })
  if (!values.ok) {
    if (values.reason !== 'RenderTimeout') return values
    return {
      ok: false,
      reason: 'RenderTimeout',
      message: renderTimeoutMessage(`${subject}: ${VALUES_TEMPLATE_NAME}`, timeMs, values.message),
    }
  }
  const input: HelmRenderInput = {
    chart: req.chart,
    helm: helmVersionOf(req.template),
    releaseName: releaseNameOf(req.template, req.instance),
    namespace: req.instance.metadata?.namespace ?? '',
    values: values.values,
    capabilities: req.capabilities,
    ...(req.limits === undefined ? {} : { limits: req.limits }),
  }
  try {
    return { ok: true, result: await req.render(input) }
  } catch (err) {
    if (err instanceof ChartRenderTimeout) {
      const chart = describeChart(helm.chart.repository)
      return { ok: false, reason: 'RenderTimeout', message: renderTimeoutMessage(`${subject}: ${chart}`, err.limitMs, err.message) }
    }
    if (!(err instanceof HelmRenderError)) throw err
    return {
      ok: false,
      reason: 'TemplateExecutionFailed',
      code: err.code,
      message: `${describeChart(helm.chart.repository)}: ${err.message}`,
    }
  }
}

export type HelmManifests =
  | { readonly ok: true; readonly objects: RenderedObject[]; readonly unknownKinds: string[] }
  | { readonly ok: false; readonly reason: 'TemplateExecutionFailed'; readonly message: string }

/** The engine's objects as manifests to apply: shape checks, namespace defaulting and duplicates, as for gotemplate. */
export function helmManifests(
  result: HelmRenderResult,
  repository: Pick<HelmRepository, 'url' | 'name' | 'version'>,
  instanceNamespace: string,
  isNamespaced: ScopeLookup,
): HelmManifests {
  try {
    // The engine's objects are shared with its caches in-process: the checks below default namespaces in place.
    const docs = result.objects.map((o, i) => ({ document: i + 1, value: structuredClone(o.object), source: o.template }))
    const objects = toRenderedObjects(docs, instanceNamespace, isNamespaced)
    const unknownKinds = [...new Set(objects.filter((o) => o.namespaced === undefined).map((o) => o.gvk))]
    return { ok: true, objects, unknownKinds }
  } catch (err) {
    if (err instanceof ManifestError) {
      return { ok: false, reason: 'TemplateExecutionFailed', message: `${describeChart(repository)}: ${err.message}` }
    }
    throw err
  }
}

/** One group/version of API discovery: "apps/v1" (core: "v1") and the kinds it serves. */
export interface DiscoveredGroupVersion {
  readonly groupVersion: string
  readonly kinds: readonly string[]
}

/**
 * .Capabilities.APIVersions as Helm builds it from a cluster's discovery
 * (action.GetVersionSet): every served group/version, then "<gv>/<Kind>" for
 * each of its kinds.
 */
export function apiVersionsFromDiscovery(groupVersions: readonly DiscoveredGroupVersion[]): string[] {
  const out = new Set<string>()
  for (const gv of groupVersions) out.add(gv.groupVersion)
  for (const gv of groupVersions) for (const kind of gv.kinds) out.add(`${gv.groupVersion}/${kind}`)
  return [...out]
}
