// renderChart: `helm template --include-crds` of one chart, in process.
//
//   release name check -> installable type -> dependencies present ->
//   dependency processing (enabled, alias, import-values) -> values
//   coalesced and validated against the schemas -> Chart.yaml kubeVersion ->
//   templates rendered -> NOTES.txt out -> documents split, hooks set apart,
//   sorted in install order -> CRDs first -> objects decoded
//
// Pure and synchronous; bounded by input.limits (limits.ts).

import { toGoValue } from '../../gotemplate/index.ts'
import type { GoMap, GoValue } from '../../gotemplate/index.ts'
import { isGoMapValue, namedValuesMap, taggedType } from '../../gotemplate/sprig/types.ts'
import { quote } from '../../gotemplate/strconv.ts'
import { capabilitiesObject, parseKubeVersion } from './capabilities.ts'
import { chartObject, filesObject, filesOf, releaseObject } from './builtins.ts'
import { coalesceValues } from './coalesce.ts'
import { isTable, type JsonMap } from './data.ts'
import { checkDependencies, isCompatibleRange, processDependencyEnabled } from './dependencies.ts'
import { renderTemplates, type TemplateFile } from './engine.ts'
import { HelmRenderError } from './errors.ts'
import { processDependencyImportValues } from './import-values.ts'
import { DEFAULT_RENDER_LIMITS } from './limits.ts'
import { crdDocuments, type Document, sortManifests } from './manifests.ts'
import { chartFullPath, isLibrary, isRoot, type RenderChart, renderTree } from './model.ts'
import { validateValues } from './schema.ts'
import type { HelmRenderedObject, HelmRenderInput, HelmRenderLimits, HelmRenderResult } from './types.ts'
import { toYamlV2 } from './yaml-values.ts'

const RELEASE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/

function checkReleaseName(helm: HelmRenderInput['helm'], name: string): void {
  if (name === '' || name.length > 53 || !RELEASE_NAME.test(name)) {
    throw new HelmRenderError(
      'ReleaseName',
      `${helm === 'v4' ? 'release name check failed: ' : ''}release name ${quote(name)}: invalid release name, must match regex ${RELEASE_NAME.source} and the length must not be longer than 53`,
    )
  }
}

/** chartutil.Values (Helm 3) / common.Values (Helm 4): a named map[string]interface{}. */
export function valuesMap(helm: HelmRenderInput['helm'], m: GoMap): GoMap {
  return namedValuesMap(m, helm === 'v3' ? 'chartutil.Values' : 'common.Values')
}

const filesCache = new WeakMap<object, GoMap>()

function chartFiles(c: RenderChart): GoMap {
  let f = filesCache.get(c.source)
  if (f === undefined) {
    f = filesObject(filesOf(c.source.files), (m) => toYamlV2(m) ?? '')
    filesCache.set(c.source, f)
  }
  return f
}

/** recAllTpls: each chart's top-level object and its templates, subcharts first. */
function collectTemplates(c: RenderChart, parentVals: Record<string, GoValue>, out: TemplateFile[], helm: HelmRenderInput['helm']): GoMap {
  const subcharts = Object.create(null) as GoMap
  const next = Object.create(null) as Record<string, GoValue>
  next.Chart = chartObject(helm, c.metadata, c.dependencyEntries, isRoot(c))
  next.Files = chartFiles(c)
  next.Release = parentVals.Release
  next.Capabilities = parentVals.Capabilities
  next.Values = valuesMap(helm, Object.create(null) as GoMap)
  next.Subcharts = subcharts
  if (isRoot(c)) next.Values = parentVals.Values
  else {
    // Values.Table("Values.<name>"): the parent's table for this chart, typed Values; an empty one when it is not a table.
    const parentValues = parentVals.Values as GoMap
    const mine = Object.hasOwn(parentValues, c.name) ? parentValues[c.name] : undefined
    if (isGoMapValue(mine) && taggedType(mine) === undefined)
      next.Values = valuesMap(helm, Object.assign(Object.create(null) as GoMap, mine))
  }
  for (const child of c.dependencies) subcharts[child.name] = collectTemplates(child, next, out, helm)
  const prefix = chartFullPath(c)
  for (const t of c.source.templates) {
    if (isLibrary(c) && !t.name.slice(t.name.lastIndexOf('/') + 1).startsWith('_')) continue
    out.push({ name: `${prefix}/${t.name}`, text: t.data.toString('utf8'), vals: next, basePath: `${prefix}/templates` })
  }
  return next as GoMap
}

function checkObject(template: string, o: Record<string, unknown>): void {
  const md = o.metadata
  if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string' || typeof md !== 'object' || md === null || Array.isArray(md)) {
    throw new HelmRenderError(
      'ManifestInvalid',
      `${template}: a rendered document is not a Kubernetes object (apiVersion, kind and metadata are required)`,
      {
        template,
      },
    )
  }
}

/** What one render produced, with each document's text: renderChart's result before decoding checks. */
export interface RenderedDocuments {
  readonly crds: readonly { readonly template: string; readonly text: string; readonly objects: Record<string, unknown>[] }[]
  readonly manifests: readonly Document[]
  readonly skipped: HelmRenderResult['skipped']
}

function crdFiles(c: RenderChart, out: RenderedDocuments['crds'][number][]): void {
  const prefix = chartFullPath(c)
  for (const f of c.source.crds) {
    const template = `${prefix}/${f.name}`
    const text = f.data.toString('utf8')
    out.push({ template, text, objects: crdDocuments(template, text) })
  }
  for (const d of c.dependencies) crdFiles(d, out)
}

/** The rendered text of every non-partial template (NOTES.txt included), as Helm's engine returns it, and the processed chart tree. */
export function renderFiles(input: HelmRenderInput): { rendered: Map<string, string>; root: RenderChart } {
  const limits: HelmRenderLimits = { ...DEFAULT_RENDER_LIMITS, ...input.limits }
  const { helm } = input
  checkReleaseName(helm, input.releaseName)
  const type = input.chart.metadata.type
  if (type !== '' && type !== 'application') throw new HelmRenderError('NotInstallable', `${type} charts are not installable`)
  const root = renderTree(input.chart)
  checkDependencies(helm, root)
  const user = toPlain(input.values)
  processDependencyEnabled(helm, root, user, '')
  processDependencyImportValues(helm, root)
  const kube = parseKubeVersion(helm, input.capabilities.kubeVersion)
  if (kube === undefined) throw new HelmRenderError('KubeVersion', `invalid kube version ${quote(input.capabilities.kubeVersion)}`)
  const values = coalesceValues(helm, root, user)
  validateValues(root, values)
  if (root.metadata.kubeVersion !== '' && !isCompatibleRange(root.metadata.kubeVersion, kube.normalized)) {
    throw new HelmRenderError(
      'KubeVersion',
      `chart requires kubeVersion: ${root.metadata.kubeVersion} which is incompatible with Kubernetes ${kube.normalized}`,
    )
  }
  const top = Object.create(null) as Record<string, GoValue>
  top.Capabilities = capabilitiesObject(helm, input.capabilities, kube)
  top.Release = releaseObject({ name: input.releaseName, namespace: input.namespace })
  top.Values = valuesMap(helm, toGoValue(values) as GoMap)
  const files: TemplateFile[] = []
  collectTemplates(root, top, files, helm)
  const rendered = renderTemplates(helm, files, limits)
  return { rendered, root }
}

export function renderDocuments(input: HelmRenderInput): RenderedDocuments {
  const { helm } = input
  const { rendered, root } = renderFiles(input)
  const skipped: HelmRenderResult['skipped'] = []
  for (const name of [...rendered.keys()]) {
    if (name.endsWith('NOTES.txt')) {
      rendered.delete(name)
      skipped.push({ template: name, reason: 'NOTES.txt is not a manifest' })
    }
  }
  const sorted = sortManifests(helm, rendered)
  const crds: RenderedDocuments['crds'][number][] = []
  crdFiles(root, crds)
  skipped.push(...sorted.hooks)
  return { crds, manifests: sorted.manifests, skipped }
}

export function renderChart(input: HelmRenderInput): HelmRenderResult {
  const limits: HelmRenderLimits = { ...DEFAULT_RENDER_LIMITS, ...input.limits }
  const docs = renderDocuments(input)
  const objects: HelmRenderedObject[] = []
  for (const c of docs.crds) for (const object of c.objects) objects.push({ template: c.template, object })
  for (const m of docs.manifests) {
    if (m.value === null) continue
    checkObject(m.template, m.value)
    objects.push({ template: m.template, object: m.value })
  }
  if (objects.length > limits.objects) {
    throw new HelmRenderError('Limit', `the chart renders ${objects.length} objects, more than the limit of ${limits.objects}`)
  }
  return { objects, skipped: [...docs.skipped] }
}

/** User values as plain data: a copy, so the caller's object is never changed. */
function toPlain(v: Record<string, unknown>): JsonMap {
  const out = structuredCloneSafe(v)
  return isTable(out) ? out : {}
}

function structuredCloneSafe(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(structuredCloneSafe)
  if (isTable(v)) {
    const out: JsonMap = {}
    for (const [k, e] of Object.entries(v)) {
      if (e === undefined) continue
      Object.defineProperty(out, k, { value: structuredCloneSafe(e), enumerable: true, writable: true, configurable: true })
    }
    return out
  }
  return v
}
