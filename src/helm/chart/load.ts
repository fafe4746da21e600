// Entry points of the chart loader: an archive in memory, a directory, or a
// local path that is either. The result is deeply frozen, so one loaded chart
// can be cached and rendered by many instances at once.

import { readFile, stat } from 'node:fs/promises'
import { type ArchiveFile, readChartArchive } from './archive.ts'
import { readChartDirectory } from './directory.ts'
import { ChartLoadCode, ChartLoadError } from './errors.ts'
import { buildChart } from './files.ts'
import { type ChartLimits, DEFAULT_CHART_LIMITS, LoadBudget } from './limits.ts'
import type { Chart, HelmVersion } from './types.ts'

export interface LoadOptions {
  /** The Helm major whose loader to follow (values.yaml documents, file size limit, accepted apiVersions). */
  readonly helm: HelmVersion
  readonly limits?: Partial<ChartLimits>
}

function budgetFor(opts: LoadOptions): LoadBudget {
  return new LoadBudget({ ...DEFAULT_CHART_LIMITS, ...opts.limits })
}

function deepFreeze<T>(v: T): T {
  // Buffers cannot be frozen; they are never handed out for writing.
  if (typeof v !== 'object' || v === null || Buffer.isBuffer(v) || Object.isFrozen(v)) return v
  for (const child of Object.values(v)) deepFreeze(child)
  return Object.freeze(v)
}

/** A chart from files already in memory (chart-relative names), for callers that assembled them. */
export async function loadChartFiles(files: readonly ArchiveFile[], opts: LoadOptions): Promise<Chart> {
  return deepFreeze(await buildChart(files, { helm: opts.helm, budget: budgetFor(opts), depth: 0 }))
}

/** A chart from a .tgz in memory: a download or a local file. */
export async function loadChartArchive(archive: Buffer, opts: LoadOptions): Promise<Chart> {
  const budget = budgetFor(opts)
  const files = await readChartArchive(archive, opts.helm, budget)
  return deepFreeze(await buildChart(files, { helm: opts.helm, budget, depth: 0 }))
}

export async function loadChartDirectory(dir: string, opts: LoadOptions): Promise<Chart> {
  const budget = budgetFor(opts)
  const files = await readChartDirectory(dir, opts.helm, budget)
  return deepFreeze(await buildChart(files, { helm: opts.helm, budget, depth: 0 }))
}

/** A local chart: a directory, or a .tgz file (what `helm template PATH` accepts). */
export async function loadChartPath(path: string, opts: LoadOptions): Promise<Chart> {
  let isDir: boolean
  let size: number
  try {
    const st = await stat(path)
    isDir = st.isDirectory()
    size = st.size
  } catch (err) {
    throw new ChartLoadError(ChartLoadCode.DirectoryUnreadable, `cannot load chart ${path}: ${(err as Error).message}`, { cause: err })
  }
  if (isDir) return loadChartDirectory(path, opts)
  const max = { ...DEFAULT_CHART_LIMITS, ...opts.limits }.maxCompressedBytes
  if (size > max)
    throw new ChartLoadError(ChartLoadCode.TooLarge, `chart archive ${path} of ${size} bytes is larger than the maximum of ${max}`)
  const data = await readFile(path)
  try {
    return await loadChartArchive(data, opts)
  } catch (err) {
    // Helm's hint for the usual mistake of passing a values file where the chart goes.
    if (err instanceof ChartLoadError && err.code === ChartLoadCode.NotGzip && /\.ya?ml$/.test(path)) {
      throw new ChartLoadError(ChartLoadCode.NotGzip, `file '${path}' seems to be a YAML file, but expected a gzipped archive`, {
        cause: err,
      })
    }
    if (err instanceof ChartLoadError)
      throw new ChartLoadError(err.code, `${path}: ${err.message}`, { ...(err.entry ? { entry: err.entry } : {}), cause: err })
    throw err
  }
}
