// Getting a chart for spec.helm.chart.repository: resolve, download, verify,
// load, cache. A chart version is immutable, so once a reference (URL, name,
// version, and the credentials it was fetched with) has been resolved to a
// digest, that chart is served from memory and never fetched again; a
// changed reference or changed credentials miss the cache and fetch. Failures
// are not cached: the reconciler retries them.

import type { HelmRepository } from '../../api/types.ts'
import { ChartLoadError } from '../chart/errors.ts'
import { type ChartLimits, DEFAULT_CHART_LIMITS } from '../chart/limits.ts'
import { loadChartArchive } from '../chart/load.ts'
import type { Chart, HelmVersion } from '../chart/types.ts'
import { type AuthSecret, credentialsFingerprint, credentialsFromSecret } from './auth.ts'
import { type CacheBounds, LruCache } from './cache.ts'
import type { Download, SourceDeps } from './download.ts'
import { type ChartRef, ChartSourceCode, ChartSourceError } from './errors.ts'
import type { FetchFn } from './http.ts'
import { pullFromHttpRepository } from './http-repository.ts'
import { pullFromOciRegistry } from './oci-registry.ts'
import { type Clock, TokenCache } from './tokens.ts'

export interface ChartFetcherOptions {
  /** Default: globalThis.fetch. */
  readonly fetch?: FetchFn
  /** Default: Date.now. Only token lifetimes depend on it. */
  readonly clock?: Clock
  /** Per HTTP request. Default 30 s. */
  readonly timeoutMs?: number
  /** Archive limits; maxCompressedBytes also bounds the download. */
  readonly limits?: Partial<ChartLimits>
  /** index.yaml, manifests, token answers. Default 32 MiB (large public indexes reach 20 MiB). */
  readonly maxMetadataBytes?: number
  /** Archives kept by digest. Default 64 archives, 64 MiB. */
  readonly archiveCache?: CacheBounds
  /** Loaded charts kept by digest and Helm major, sized by their unpacked files. Default 64 charts, 256 MiB. */
  readonly chartCache?: CacheBounds
  /** host[:port] of OCI registries reached over plain HTTP (tests, local registries). Default none. */
  readonly plainHttpRegistries?: readonly string[]
}

export interface ChartRequest {
  readonly repository: HelmRepository
  /** Which Helm major's loader rules apply (spec.helm.version). */
  readonly helm: HelmVersion
  /** The Secret named by repository.auth.secretRef, read by the caller from the Template's namespace. */
  readonly auth?: AuthSecret
}

export interface FetchedChart {
  readonly chart: Chart
  /** "sha256:<hex>" of the chart archive. */
  readonly digest: string
  readonly ref: ChartRef
  /** true when nothing was fetched for this call. */
  readonly cached: boolean
}

export interface ChartFetcher {
  /** Throws ChartSourceError (code, condition, message naming URL, chart and version). */
  fetchChart(req: ChartRequest): Promise<FetchedChart>
}

/** The CRD's pattern for spec.helm.chart.repository.version. */
const EXACT_VERSION = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/

function checkReference(ref: ChartRef): 'http' | 'oci' {
  let u: URL
  try {
    u = new URL(ref.url)
  } catch {
    throw new ChartSourceError(ChartSourceCode.InvalidReference, ref, 'the repository URL is not a URL')
  }
  if (u.username !== '' || u.password !== '') {
    throw new ChartSourceError(ChartSourceCode.InvalidReference, ref, 'the repository URL carries credentials; put them in the auth Secret')
  }
  if (!EXACT_VERSION.test(ref.version))
    throw new ChartSourceError(ChartSourceCode.InvalidReference, ref, 'the version is not an exact SemVer version')
  if (ref.name === '' || ref.name.includes('/'))
    throw new ChartSourceError(ChartSourceCode.InvalidReference, ref, 'the chart name is empty or has a "/"')
  if (u.protocol === 'http:' || u.protocol === 'https:') return 'http'
  if (u.protocol === 'oci:') return 'oci'
  throw new ChartSourceError(ChartSourceCode.InvalidReference, ref, `the repository URL scheme ${u.protocol} is not http, https or oci`)
}

/** host[:port] the credentials are for (the docker config entry to use). */
function repositoryHost(kind: 'http' | 'oci', url: string): string {
  return kind === 'oci' ? (url.slice('oci://'.length).split('/')[0] ?? '') : new URL(url).host
}

/** Bytes a loaded chart holds, subcharts included. */
function chartBytes(c: Chart): number {
  let n = (c.valuesRaw?.length ?? 0) * 2 + (c.schema?.length ?? 0)
  for (const f of [...c.templates, ...c.files]) n += f.data.length
  for (const s of c.subcharts) n += chartBytes(s.chart)
  return n
}

export function createChartFetcher(opts: ChartFetcherOptions = {}): ChartFetcher {
  const limits = { ...DEFAULT_CHART_LIMITS, ...opts.limits }
  const tokens = new TokenCache(opts.clock ?? { now: () => Date.now() })
  const deps: SourceDeps & { tokens: TokenCache } = {
    http: { fetch: opts.fetch ?? ((url, init) => globalThis.fetch(url, init)), timeoutMs: opts.timeoutMs ?? 30_000 },
    maxMetadataBytes: opts.maxMetadataBytes ?? 32 * 1024 * 1024,
    maxArchiveBytes: limits.maxCompressedBytes,
    plainHttpRegistries: opts.plainHttpRegistries ?? [],
    tokens,
  }
  const resolved = new LruCache<string, string>({ maxEntries: 4096, maxBytes: Number.MAX_SAFE_INTEGER })
  const archives = new LruCache<string, Buffer>(opts.archiveCache ?? { maxEntries: 64, maxBytes: 64 * 1024 * 1024 })
  const charts = new LruCache<string, Chart>(opts.chartCache ?? { maxEntries: 64, maxBytes: 256 * 1024 * 1024 })
  // One fetch per reference at a time, however many instances ask; it ends once the chart is cached.
  const inFlight = new Map<string, Promise<FetchedChart>>()

  const load = async (ref: ChartRef, digest: string, archive: Buffer, helm: HelmVersion): Promise<Chart> => {
    const key = `${digest}|${helm}`
    const hit = charts.get(key)
    if (hit !== undefined) return hit
    let chart: Chart
    try {
      chart = await loadChartArchive(archive, { helm, limits })
    } catch (err) {
      if (err instanceof ChartLoadError)
        throw new ChartSourceError(ChartSourceCode.BadArchive, ref, `the chart archive does not load: ${err.message}`, { cause: err })
      throw err
    }
    charts.set(key, chart, chartBytes(chart))
    return chart
  }

  const download = (kind: 'http' | 'oci', ref: ChartRef, req: ChartRequest): Promise<Download> => {
    const source = { ref, credentials: credentialsFromSecret(req.auth, repositoryHost(kind, ref.url), ref) }
    return kind === 'oci' ? pullFromOciRegistry(deps, source) : pullFromHttpRepository(deps, source)
  }

  const fromCache = async (specKey: string, ref: ChartRef, helm: HelmVersion): Promise<FetchedChart | undefined> => {
    const digest = resolved.get(specKey)
    if (digest === undefined) return undefined
    const chart = charts.get(`${digest}|${helm}`)
    if (chart !== undefined) return { chart, digest, ref, cached: true }
    const archive = archives.get(digest)
    if (archive !== undefined) return { chart: await load(ref, digest, archive, helm), digest, ref, cached: true }
    return undefined
  }

  const fetchChart = async (req: ChartRequest): Promise<FetchedChart> => {
    const { url, name, version } = req.repository
    const ref: ChartRef = { url, name, version }
    const kind = checkReference(ref)
    const fingerprint = credentialsFingerprint(credentialsFromSecret(req.auth, repositoryHost(kind, url), ref))
    const specKey = JSON.stringify([url.replace(/\/+$/, ''), name, version, fingerprint])
    const hit = await fromCache(specKey, ref, req.helm)
    if (hit !== undefined) return hit
    const running = inFlight.get(specKey)
    if (running !== undefined) {
      // Another caller is fetching this reference: wait for it (sharing its failure), then read the cache it filled.
      await running
      return (await fromCache(specKey, ref, req.helm)) ?? fetchChart(req)
    }
    const p = (async (): Promise<FetchedChart> => {
      const d = await download(kind, ref, req)
      // Load before remembering the reference: an archive that does not load is not cached.
      const chart = await load(ref, d.digest, d.archive, req.helm)
      archives.set(d.digest, d.archive, d.archive.length)
      resolved.set(specKey, d.digest, 0)
      return { chart, digest: d.digest, ref, cached: false }
    })().finally(() => inFlight.delete(specKey))
    inFlight.set(specKey, p)
    return p
  }
  return { fetchChart }
}
