// Pulling a chart from an http(s):// chart repository: index.yaml, the
// entry for name + version, its first URL (relative or absolute), the
// archive, and the digest check when the index gives a digest (Helm itself
// does not verify it; a repository that serves other bytes than it indexes
// is refused here).

import { basicAuthorization } from './auth.ts'
import { type Download, type SourceDeps, type SourceRequest, verifiedDigest } from './download.ts'
import { ChartSourceCode, ChartSourceError } from './errors.ts'
import { displayUrl } from '../../encoding/url.ts'
import { httpGet, statusError } from './http.ts'
import { findChartVersion, IndexError, parseRepositoryIndex, resolveChartUrl } from './repo-index.ts'

export async function pullFromHttpRepository(deps: SourceDeps, req: SourceRequest): Promise<Download> {
  const { ref } = req
  const repo = new URL(ref.url)
  // Basic credentials go to the repository's own origin only, as Helm sends them to the repository host only.
  const credentials =
    req.credentials === undefined ? undefined : { origin: repo.origin, authorization: basicAuthorization(req.credentials) }
  const indexUrl = resolveChartUrl(ref.url, 'index.yaml')
  const indexRes = await httpGet(
    deps.http,
    {
      url: indexUrl,
      credentials,
      maxBytes: deps.maxMetadataBytes,
      what: 'index.yaml',
      headers: { accept: 'application/yaml, application/json, */*' },
    },
    ref,
  )
  if (indexRes.status !== 200) throw statusError(indexRes, ref, 'index.yaml', ChartSourceCode.BadRepository)
  let index: ReturnType<typeof parseRepositoryIndex>
  try {
    index = parseRepositoryIndex(indexRes.body)
  } catch (err) {
    if (err instanceof IndexError) {
      throw new ChartSourceError(
        ChartSourceCode.BadRepository,
        ref,
        `${displayUrl(indexUrl)} is not a valid chart repository index: ${err.message}`,
      )
    }
    throw err
  }
  const found = findChartVersion(index, ref.name, ref.version)
  if (!found.found) {
    if (found.reason === 'no-chart')
      throw new ChartSourceError(ChartSourceCode.ChartNotFound, ref, `the repository index has no chart ${ref.name}`)
    const known = found.available.length > 0 ? ` (newest: ${found.available.join(', ')})` : ''
    throw new ChartSourceError(
      ChartSourceCode.VersionNotFound,
      ref,
      `the repository index has no version ${ref.version} of ${ref.name}${known}`,
    )
  }
  const first = found.entry.urls[0]
  if (first === undefined) throw new ChartSourceError(ChartSourceCode.BadRepository, ref, 'the index entry has no download URL')
  let chartUrl: string
  try {
    chartUrl = resolveChartUrl(ref.url, first)
  } catch {
    throw new ChartSourceError(
      ChartSourceCode.BadRepository,
      ref,
      `the index entry's URL ${JSON.stringify(displayUrl(first))} is not a URL`,
    )
  }
  if (!/^https?:$/.test(new URL(chartUrl).protocol)) {
    throw new ChartSourceError(ChartSourceCode.BadRepository, ref, `the index entry's URL ${displayUrl(chartUrl)} is not http(s)`)
  }
  const res = await httpGet(deps.http, { url: chartUrl, credentials, maxBytes: deps.maxArchiveBytes, what: 'chart archive' }, ref)
  if (res.status !== 200) throw statusError(res, ref, 'chart archive', ChartSourceCode.BadRepository)
  const expected = found.entry.digest === '' ? undefined : `sha256:${found.entry.digest}`
  return { archive: res.body, digest: verifiedDigest(res.body, expected, ref, displayUrl(chartUrl)) }
}
