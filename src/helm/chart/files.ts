// Sorting a chart's files into the model: Helm's LoadFiles. Chart.yaml is
// read first whatever the file order; values, schema, locks, templates and
// charts/ have their own buckets; everything else is a file for `.Files`.
// Subcharts under charts/ (directories or .tgz) load recursively, sharing
// the parent's budget.

import { type ArchiveFile, readChartArchive } from './archive.ts'
import { StructDecodeError } from './decode.ts'
import { ChartLoadCode, ChartLoadError } from './errors.ts'
import type { LoadBudget } from './limits.ts'
import { ChartValidationError, type DecodedMetadata, readApiVersion, readLock, readMetadata, validateMetadata } from './metadata.ts'
import type { Chart, ChartFile, ChartLock, HelmVersion, JsonMap, Subchart } from './types.ts'
import { ChartYamlError, decodeFirstDocument, decodeValues } from './yaml.ts'

export interface BuildContext {
  readonly helm: HelmVersion
  readonly budget: LoadBudget
  /** 0 for the chart being loaded, 1 for its subcharts, ... */
  readonly depth: number
}

/** A decoding failure of `file` as Helm words it ("cannot load values.yaml: ..."); other errors pass unchanged. */
function invalid(file: string, err: unknown): unknown {
  if (err instanceof ChartYamlError || err instanceof StructDecodeError) {
    return new ChartLoadError(ChartLoadCode.InvalidChart, `cannot load ${file}: ${err.message}`, { entry: file, cause: err })
  }
  return err
}

function decodeYamlFile<T>(file: ArchiveFile, read: (doc: unknown) => T): T {
  try {
    return read(decodeFirstDocument(file.data.toString('utf8')))
  } catch (err) {
    throw invalid(file.name, err)
  }
}

/** filepath.Ext: the suffix from the last "." of the last path element. */
function ext(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1)
  const dot = base.lastIndexOf('.')
  return dot === -1 ? '' : base.slice(dot)
}

function isCrd(f: ChartFile): boolean {
  const e = ext(f.name).toLowerCase()
  return f.name.startsWith('crds/') && (e === '.yaml' || e === '.yml' || e === '.json')
}

/** Helm 4 renders only charts of apiVersion v1 or v2 (or none); Helm 3 only needs one to be set. */
function checkApiVersion(raw: string, ctx: BuildContext): void {
  if (ctx.helm !== 'v4' || ctx.depth > 0 || raw === '' || raw === 'v1' || raw === 'v2') return
  const why =
    raw === 'v3' ? 'invalid chart apiVersion (chart API v3 is experimental in Helm 4 and not rendered)' : 'unsupported chart version'
  throw new ChartLoadError(ChartLoadCode.UnsupportedApiVersion, `Chart.yaml apiVersion ${JSON.stringify(raw)}: ${why}`, {
    entry: 'Chart.yaml',
  })
}

export async function buildChart(files: readonly ArchiveFile[], ctx: BuildContext): Promise<Chart> {
  let md: DecodedMetadata | undefined
  let first = true
  for (const f of files) {
    if (f.name !== 'Chart.yaml') continue
    md = decodeYamlFile(f, (doc) => {
      if (first) checkApiVersion(readApiVersion(doc), ctx)
      const next = readMetadata(doc, md)
      // Helm 2 charts have no apiVersion: they are v1.
      return next.apiVersion === '' ? { ...next, apiVersion: 'v1' } : next
    })
    first = false
  }
  let lock: ChartLock | undefined
  let valuesRaw: string | undefined
  let values: JsonMap = {}
  let schema: Buffer | undefined
  const templates: ChartFile[] = []
  const other: ChartFile[] = []
  const subchartFiles = new Map<string, ArchiveFile[]>()
  for (const f of files) {
    const n = f.name
    if (n === 'Chart.yaml') continue
    if (n === 'Chart.lock') {
      lock = decodeYamlFile(f, readLock)
    } else if (n === 'values.yaml') {
      valuesRaw = f.data.toString('utf8')
      try {
        values = decodeValues(valuesRaw, ctx.helm)
      } catch (err) {
        throw invalid(n, err)
      }
    } else if (n === 'values.schema.json') {
      schema = f.data
    } else if (n === 'requirements.yaml') {
      const base = md
      md = decodeYamlFile(f, (doc) => readMetadata(doc, base))
      if (md.apiVersion === 'v1') other.push(f)
    } else if (n === 'requirements.lock') {
      lock = decodeYamlFile(f, readLock)
      md ??= readMetadata(null)
      if (md.apiVersion === 'v1') other.push(f)
    } else if (n.startsWith('templates/')) {
      templates.push(f)
    } else if (n.startsWith('charts/')) {
      if (ext(n) === '.prov') {
        other.push(f)
        continue
      }
      const rest = n.slice('charts/'.length)
      const slash = rest.indexOf('/')
      const entry = slash === -1 ? rest : rest.slice(0, slash)
      const list = subchartFiles.get(entry) ?? []
      list.push({ name: rest, data: f.data })
      subchartFiles.set(entry, list)
    } else {
      other.push(f)
    }
  }
  if (md === undefined) throw new ChartLoadError(ChartLoadCode.InvalidChart, 'Chart.yaml file is missing', { entry: 'Chart.yaml' })
  let metadata: Chart['metadata']
  try {
    metadata = validateMetadata(md)
  } catch (err) {
    if (err instanceof ChartValidationError)
      throw new ChartLoadError(ChartLoadCode.InvalidChart, err.message, { entry: 'Chart.yaml', cause: err })
    throw err
  }
  const subcharts: Subchart[] = []
  for (const entry of [...subchartFiles.keys()].sort()) {
    if (entry.startsWith('_') || entry.startsWith('.')) continue
    try {
      subcharts.push({ entry, chart: await loadSubchart(entry, subchartFiles.get(entry) ?? [], metadata.name, ctx) })
    } catch (err) {
      if (err instanceof ChartLoadError) throw err.inSubchart(entry, metadata.name)
      throw err
    }
  }
  return { metadata, lock, valuesRaw, values, schema, templates, crds: other.filter(isCrd), files: other, subcharts }
}

async function loadSubchart(entry: string, files: readonly ArchiveFile[], parent: string, ctx: BuildContext): Promise<Chart> {
  const depth = ctx.depth + 1
  if (depth > ctx.budget.limits.maxSubchartDepth) {
    throw new ChartLoadError(ChartLoadCode.TooDeep, `subcharts are nested more than ${ctx.budget.limits.maxSubchartDepth} levels deep`)
  }
  const sub: BuildContext = { ...ctx, depth }
  if (ext(entry) === '.tgz') {
    const [file] = files
    if (file === undefined || file.name !== entry) {
      throw new ChartLoadError(
        ChartLoadCode.InvalidChart,
        `error unpacking subchart tar in ${parent}: expected ${entry}, got ${file?.name ?? 'nothing'}`,
      )
    }
    return buildChart(await readChartArchive(file.data, ctx.helm, ctx.budget), sub)
  }
  // A plain file directly under charts/ (a README) becomes an empty subchart, which fails for lack of a Chart.yaml.
  const inside = files.filter((f) => f.name.includes('/')).map((f) => ({ name: f.name.slice(f.name.indexOf('/') + 1), data: f.data }))
  return buildChart(inside, sub)
}
