// spec.helm at the reconciler's edges: the chart (auth Secret from the
// Template's namespace, then the one chart fetcher of the process), the
// cluster's capabilities, the render pool (which runs the Go templates too,
// render-pool.ts); and on top of them the helm branch of the render pipeline
// and of the Template validator.
//
// Chart failures are values, not exceptions: a repository that does not
// answer is SourceAccessible=False on the Template and
// Rendered=False/ChartUnavailable on its instances, both retried every
// retryMs (60 s). Messages name the repository URL, chart and version
// (ChartSourceError builds them without credentials), never a Secret value.

import type { HelmCapabilities, HelmRenderLimits } from '../helm/render/index.ts'
import { Reason } from '../api/conditions.ts'
import type { Template } from '../api/template.ts'
import type { TemplateInstance } from '../api/templateinstance.ts'
import type { DryRunCheck, RenderOutcome, SourceCheck, TemplateCheck } from '../controller/pipeline.ts'
import type { AuthSecret } from '../helm/source/auth.ts'
import { ChartSourceError } from '../helm/source/errors.ts'
import { type ChartFetcher, createChartFetcher, type FetchedChart } from '../helm/source/fetcher.ts'
import type { KubeClient } from '../kube/client.ts'
import { KubeApiError } from '../kube/errors.ts'
import type { RestMapper } from '../kube/discovery.ts'
import { type ChartRenderFn, describeChart, helmManifests, helmVersionOf, renderHelmChart } from '../render/helm.ts'
import { parseGvkString } from '../api/identity.ts'
import type { TemplateRunner } from '../render/template-job.ts'
import { DEFAULT_RENDER_TIMEOUT_MS, renderTimeoutMessage, templateSubject } from '../render/time-limit.ts'
import type { ParamValue } from '../render/types.ts'
import { VALUES_TEMPLATE_NAME } from '../render/values-template.ts'
import { clusterCapabilities } from './capabilities.ts'
import { createRenderPool, type RenderPool } from './render-pool.ts'

export type ChartOutcome =
  | { readonly ok: true; readonly fetched: FetchedChart }
  | { readonly ok: false; readonly condition: 'SourceAccessible' | 'Valid'; readonly message: string }

/** Secret.data of a Secret, or why it cannot be had. */
export type SecretReader = (namespace: string, name: string) => Promise<Readonly<Record<string, string>> | 'not-found' | 'forbidden'>

/**
 * What rendering needs from the process: one of each, shared by the render
 * pipeline and the Template validator. The render pool behind `render` runs
 * every Go template too (`runTemplate`).
 */
export interface HelmSupport {
  /** The chart spec.helm.chart.repository names, fetched with its auth Secret. */
  chartFor(template: Template): Promise<ChartOutcome>
  capabilities(): Promise<HelmCapabilities>
  readonly render: ChartRenderFn
  /** spec.gotemplate, valuesTemplate and parse checks (template-job.ts). */
  readonly runTemplate: TemplateRunner
  /** How soon a chart that could not be fetched is tried again. */
  readonly retryMs: number
  /** The chart's limits; timeMs is the limit of every render (docs/render-time-limit.md). */
  readonly limits: Partial<HelmRenderLimits> & { readonly timeMs: number }
  close(): Promise<void>
}

export interface HelmSupportOptions {
  /** Reads auth Secrets and the cluster's capabilities. */
  readonly client: KubeClient
  /** Default: createChartFetcher with plainHttpRegistries. */
  readonly fetcher?: ChartFetcher
  /** host[:port] of OCI registries reached over plain HTTP. */
  readonly plainHttpRegistries?: readonly string[]
  /** Default: a pool of worker threads (render-pool.ts). */
  readonly renderer?: RenderPool
  /** The time limit of every render (Go templates, valuesTemplates, charts). Default 10 s. */
  readonly timeoutMs?: number
  /** The chart engine's other limits. */
  readonly limits?: Partial<HelmRenderLimits>
  /** Default 60 s, as the Template Operator documents. */
  readonly retryMs?: number
  /** How long discovery is reused for .Capabilities. Default 5 minutes. */
  readonly capabilitiesTtlMs?: number
}

/** Secrets through the API; 404 and 403 are answers, anything else a transient failure that propagates. */
export function apiSecretReader(client: KubeClient): SecretReader {
  return async (namespace, name) => {
    try {
      const s = await client.get<{ data?: Record<string, string> }>(
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`,
      )
      return s.data ?? {}
    } catch (e) {
      if (e instanceof KubeApiError && e.code === 404) return 'not-found'
      if (e instanceof KubeApiError && e.code === 403) return 'forbidden'
      throw e
    }
  }
}

/** The chart of a Template from a fetcher, with the auth Secret read from the Template's namespace. */
export async function fetchTemplateChart(template: Template, fetcher: ChartFetcher, readSecret: SecretReader): Promise<ChartOutcome> {
  const helm = template.spec.helm
  if (helm === undefined) throw new Error('fetchTemplateChart: the Template has no spec.helm')
  const repository = helm.chart.repository
  const namespace = template.metadata?.namespace ?? ''
  let auth: AuthSecret | undefined
  const secretName = repository.auth?.secretRef.name
  if (secretName !== undefined) {
    const data = await readSecret(namespace, secretName)
    const what = `${describeChart(repository)}: auth Secret ${namespace}/${secretName} (spec.helm.chart.repository.auth.secretRef)`
    if (data === 'not-found') return { ok: false, condition: 'SourceAccessible', message: `${what} not found` }
    if (data === 'forbidden') {
      return {
        ok: false,
        condition: 'SourceAccessible',
        message: `${what} may not be read by template-sync: grant it get on secrets (rbac.additionalRules)`,
      }
    }
    auth = { name: `${namespace}/${secretName}`, data }
  }
  try {
    const fetched = await fetcher.fetchChart({ repository, helm: helmVersionOf(template), ...(auth === undefined ? {} : { auth }) })
    return { ok: true, fetched }
  } catch (err) {
    if (err instanceof ChartSourceError) return { ok: false, condition: err.condition, message: err.message }
    throw err
  }
}

export function createHelmSupport(opts: HelmSupportOptions): HelmSupport {
  const fetcher = opts.fetcher ?? createChartFetcher({ plainHttpRegistries: opts.plainHttpRegistries ?? [] })
  const renderer = opts.renderer ?? createRenderPool()
  const caps = clusterCapabilities(opts.client, opts.capabilitiesTtlMs === undefined ? {} : { ttlMs: opts.capabilitiesTtlMs })
  const readSecret = apiSecretReader(opts.client)
  return {
    chartFor: (template) => fetchTemplateChart(template, fetcher, readSecret),
    capabilities: () => caps.get(),
    render: (input) => renderer.render(input),
    runTemplate: renderer.runTemplate,
    retryMs: opts.retryMs ?? 60_000,
    limits: { ...opts.limits, timeMs: opts.timeoutMs ?? opts.limits?.timeMs ?? DEFAULT_RENDER_TIMEOUT_MS },
    close: () => renderer.close(),
  }
}

/** Whether kinds are namespaced: from discovery in the reconciler, a built-in table offline, unknown in a dry run. */
export interface ScopeSource {
  namespaced(apiVersion: string, kind: string): boolean | undefined
  /** Looks a kind up that namespaced() did not know; the render then asks namespaced() again. */
  learn?(apiVersion: string, kind: string): Promise<void>
}

/** A ScopeSource over the reconciler's discovery. */
export function discoveryScope(mapper: RestMapper): ScopeSource {
  return {
    namespaced: (apiVersion, kind) => mapper.cached(apiVersion, kind)?.namespaced,
    learn: async (apiVersion, kind) => {
      await mapper.mapping(apiVersion, kind).catch(() => undefined)
    },
  }
}

/** Looks up the scope of kinds the render met for the first time; true when there were any to learn. */
export async function learnScopes(scope: ScopeSource, unknownKinds: readonly string[]): Promise<boolean> {
  if (unknownKinds.length === 0 || scope.learn === undefined) return false
  for (const g of unknownKinds) {
    const { apiVersion, kind } = parseGvkString(g)
    await scope.learn(apiVersion, kind)
  }
  return true
}

/** The helm branch of RenderPipeline.render: the objects the chart renders for this instance. */
export async function renderHelmTemplate(
  helm: HelmSupport,
  template: Template,
  instance: Pick<TemplateInstance, 'metadata'>,
  values: Readonly<Record<string, ParamValue>>,
  scope: ScopeSource,
  /** Told what the chart rendered but is not applied (hooks, tests, NOTES.txt). */
  onSkipped?: (skipped: readonly { template: string; reason: string }[]) => void,
): Promise<RenderOutcome> {
  const spec = template.spec.helm
  if (spec === undefined) throw new Error('renderHelmTemplate: the Template has no spec.helm')
  const chart = await helm.chartFor(template)
  if (!chart.ok) return { ok: false, reason: Reason.ChartUnavailable, message: chart.message, retryAfterMs: helm.retryMs }
  const rendered = await renderHelmChart({
    template,
    instance,
    values,
    runTemplate: helm.runTemplate,
    chart: chart.fetched.chart,
    capabilities: await helm.capabilities(),
    render: helm.render,
    limits: helm.limits,
  })
  if (!rendered.ok) return { ok: false, reason: rendered.reason, message: rendered.message }
  const namespace = instance.metadata?.namespace ?? ''
  onSkipped?.(rendered.result.skipped)
  const lookup = (apiVersion: string, kind: string): boolean | undefined => scope.namespaced(apiVersion, kind)
  let objects = helmManifests(rendered.result, spec.chart.repository, namespace, lookup)
  // Learn the scope of kinds seen for the first time; the chart need not render again.
  if (objects.ok && (await learnScopes(scope, objects.unknownKinds))) {
    objects = helmManifests(rendered.result, spec.chart.repository, namespace, lookup)
  }
  if (!objects.ok) return { ok: false, reason: objects.reason, message: objects.message }
  return { ok: true, objects: objects.objects.map((o) => o.object) }
}

/**
 * Whether a Go template body parses (Valid), checked in the render pool like
 * every other run of a user's template; one whose parse runs past the time
 * limit is RenderTimeout.
 */
export async function parseCheck(helm: HelmSupport, subject: string, name: string, text: string): Promise<TemplateCheck> {
  const timeMs = helm.limits.timeMs
  const parsed = await helm.runTemplate({ kind: 'parse', name, text, timeMs })
  if (parsed.ok) return { ok: true }
  if (parsed.reason === 'RenderTimeout') {
    return { ok: false, reason: Reason.RenderTimeout, message: renderTimeoutMessage(subject, timeMs, parsed.message) }
  }
  return { ok: false, reason: Reason.ValidationFailed, message: parsed.message }
}

/** spec.helm's part of Valid: the valuesTemplate parses. */
export async function validateHelmSpec(helm: HelmSupport, template: Template): Promise<TemplateCheck> {
  const text = template.spec.helm?.valuesTemplate
  if (text === undefined) return { ok: true }
  return parseCheck(helm, `${templateSubject(template)}: ${VALUES_TEMPLATE_NAME}`, VALUES_TEMPLATE_NAME, text)
}

/**
 * Where a failed dry run goes: a render stopped at the time limit makes the
 * Template Valid=False/RenderTimeout (no instance of it can render either);
 * any other failure is DryRunRendered=False/RenderFailed.
 */
export function dryRunFailure(reason: string, message: string): DryRunCheck {
  return reason === Reason.RenderTimeout
    ? { ok: false, condition: 'Valid', reason: Reason.RenderTimeout, message }
    : { ok: false, condition: 'DryRunRendered', reason: Reason.RenderFailed, message }
}

export async function checkHelmSource(helm: HelmSupport, template: Template): Promise<SourceCheck> {
  const chart = await helm.chartFor(template)
  if (!chart.ok) return { ok: false, condition: chart.condition, message: chart.message, retryAfterMs: helm.retryMs }
  return { ok: true, message: `${describeChart(chart.fetched.ref)}: fetched (${chart.fetched.digest})` }
}

/**
 * A dry render of a helm Template with the parameters' literal defaults, as
 * instance "dry-run" in the Template's namespace. Skipped when a
 * valuesTemplate needs a parameter without one. A values schema violation
 * or the time limit makes the Template invalid (Valid); any other failure is
 * DryRunRendered.
 */
export async function dryRunHelm(
  helm: HelmSupport,
  template: Template,
  /** Results by Template uid, generation and chart digest: a status-only update of the Template does not render again. */
  memo: Map<string, DryRunCheck>,
): Promise<DryRunCheck> {
  const params = template.spec.parameters ?? []
  if (template.spec.helm?.valuesTemplate !== undefined && params.some((p) => p.value === undefined)) return 'skipped'
  const values: Record<string, ParamValue> = Object.create(null) as Record<string, ParamValue>
  for (const p of params) values[p.name] = p.value ?? ''
  const ns = template.metadata?.namespace ?? 'default'
  const chart = await helm.chartFor(template)
  if (!chart.ok) return { ok: false, condition: 'DryRunRendered', reason: Reason.RenderFailed, message: chart.message }
  const key = `${dryRunKey(template)}/${chart.fetched.digest}`
  return rememberedDryRun(memo, key, () => dryRunChart(helm, template, chart.fetched, values, ns))
}

/** A dry run's memo key: the Template's uid and generation (a status-only update changes neither). */
export function dryRunKey(template: Template): string {
  return `${template.metadata?.uid ?? ''}/${template.metadata?.generation ?? 0}`
}

/** The dry run's result under `key`, run once and kept (at most about 1,000 kept). */
export async function rememberedDryRun(memo: Map<string, DryRunCheck>, key: string, run: () => Promise<DryRunCheck>): Promise<DryRunCheck> {
  const known = memo.get(key)
  if (known !== undefined) return known
  const check = await run()
  if (memo.size > 1000) memo.clear()
  memo.set(key, check)
  return check
}

async function dryRunChart(
  helm: HelmSupport,
  template: Template,
  chart: FetchedChart,
  values: Record<string, ParamValue>,
  ns: string,
): Promise<DryRunCheck> {
  const rendered = await renderHelmChart({
    template,
    instance: { metadata: { name: 'dry-run', namespace: ns, labels: {} } },
    values,
    runTemplate: helm.runTemplate,
    chart: chart.chart,
    capabilities: await helm.capabilities(),
    render: helm.render,
    limits: helm.limits,
  })
  if (!rendered.ok) {
    return rendered.code === 'SchemaViolation'
      ? { ok: false, condition: 'Valid', reason: Reason.ValidationFailed, message: rendered.message }
      : dryRunFailure(rendered.reason, rendered.message)
  }
  const objects = helmManifests(rendered.result, chart.ref, ns, () => undefined)
  return objects.ok ? { ok: true } : { ok: false, condition: 'DryRunRendered', reason: Reason.RenderFailed, message: objects.message }
}
