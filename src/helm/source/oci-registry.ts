// Pulling a chart from an oci:// registry the way Helm (through oras) does:
// GET the manifest of <repository>:<tag>, answer a 401 challenge (Basic, or
// Bearer through the token service it names), find the chart layer and GET
// that blob, checking its digest and size.

import { basicAuthorization, credentialsFingerprint } from './auth.ts'
import { type Download, type SourceDeps, type SourceRequest, verifiedDigest } from './download.ts'
import { type ChartRef, ChartSourceCode, ChartSourceError } from './errors.ts'
import { displayUrl } from '../../encoding/url.ts'
import { type HttpResponse, httpGet, statusError } from './http.ts'
import {
  type Challenge,
  chartLayer,
  OCI_MANIFEST_MEDIA_TYPE,
  OciError,
  type OciReference,
  ociReference,
  parseChallenge,
  registryErrorCode,
} from './oci.ts'
import type { TokenCache } from './tokens.ts'

export interface OciDeps extends SourceDeps {
  readonly tokens: TokenCache
}

interface Session {
  readonly deps: OciDeps
  readonly req: SourceRequest
  readonly oci: OciReference
  readonly origin: string
  /** The Authorization header that worked last, reused for the blob. */
  authorization: string | undefined
}

function reference(ref: ChartRef): OciReference {
  try {
    return ociReference(ref.url, ref.name, ref.version)
  } catch (err) {
    if (err instanceof OciError) throw new ChartSourceError(ChartSourceCode.InvalidReference, ref, err.message)
    throw err
  }
}

async function bearerToken(s: Session, challenge: Extract<Challenge, { scheme: 'bearer' }>): Promise<string> {
  const { deps, req } = s
  const scope = challenge.scope ?? `repository:${s.oci.repository}:pull`
  let realm: URL
  try {
    realm = new URL(challenge.realm)
  } catch {
    throw new ChartSourceError(
      ChartSourceCode.BadRepository,
      req.ref,
      `the registry's token realm ${JSON.stringify(challenge.realm)} is not a URL`,
    )
  }
  // Credentials never go to a token service over plain HTTP unless the registry itself is plain HTTP.
  if (realm.protocol !== 'https:' && !(realm.protocol === 'http:' && s.origin.startsWith('http:'))) {
    throw new ChartSourceError(
      ChartSourceCode.BadRepository,
      req.ref,
      `the registry's token realm ${displayUrl(realm.toString())} is not https`,
    )
  }
  if (challenge.service !== undefined) realm.searchParams.set('service', challenge.service)
  realm.searchParams.set('scope', scope)
  const key = `${realm.origin}${realm.pathname}|${challenge.service ?? ''}|${scope}|${credentialsFingerprint(req.credentials)}`
  const held = deps.tokens.get(key)
  if (held !== undefined) return held
  const credentials =
    req.credentials === undefined ? undefined : { origin: realm.origin, authorization: basicAuthorization(req.credentials) }
  const res = await httpGet(
    deps.http,
    { url: realm.toString(), credentials, maxBytes: deps.maxMetadataBytes, what: 'registry token' },
    req.ref,
  )
  if (res.status !== 200) throw statusError(res, req.ref, 'a registry token', ChartSourceCode.BadRepository)
  let body: { token?: unknown; access_token?: unknown; expires_in?: unknown }
  try {
    body = JSON.parse(res.body.toString('utf8')) as typeof body
  } catch {
    throw new ChartSourceError(ChartSourceCode.BadRepository, req.ref, 'the token service answered with something that is not JSON')
  }
  const token = typeof body.token === 'string' && body.token !== '' ? body.token : body.access_token
  if (typeof token !== 'string' || token === '')
    throw new ChartSourceError(ChartSourceCode.BadRepository, req.ref, 'the token service answered without a token')
  deps.tokens.put(key, token, typeof body.expires_in === 'number' ? body.expires_in : undefined)
  return token
}

/** GET on the registry, answering one authentication challenge. */
async function registryGet(s: Session, path: string, accept: string | undefined, maxBytes: number, what: string): Promise<HttpResponse> {
  const url = `${s.origin}/v2/${s.oci.repository}/${path}`
  const get = (authorization: string | undefined) =>
    httpGet(
      s.deps.http,
      {
        url,
        maxBytes,
        what,
        ...(accept === undefined ? {} : { headers: { accept } }),
        ...(authorization === undefined ? {} : { credentials: { origin: s.origin, authorization } }),
      },
      s.req.ref,
    )
  let res = await get(s.authorization)
  if (res.status !== 401) return res
  const challenge = parseChallenge(res.headers.get('www-authenticate'))
  if (challenge === undefined) return res
  if (challenge.scheme === 'basic') {
    if (s.req.credentials === undefined) return res
    s.authorization = basicAuthorization(s.req.credentials)
  } else {
    s.authorization = `Bearer ${await bearerToken(s, challenge)}`
  }
  res = await get(s.authorization)
  return res
}

export async function pullFromOciRegistry(deps: OciDeps, req: SourceRequest): Promise<Download> {
  const { ref } = req
  const oci = reference(ref)
  const scheme = deps.plainHttpRegistries.includes(oci.registry) ? 'http' : 'https'
  const s: Session = { deps, req, oci, origin: `${scheme}://${oci.registry}`, authorization: undefined }
  const manifest = await registryGet(s, `manifests/${oci.tag}`, OCI_MANIFEST_MEDIA_TYPE, deps.maxMetadataBytes, 'manifest')
  if (manifest.status === 404) {
    // NAME_UNKNOWN: no such repository, i.e. no such chart; anything else: the tag (version) is missing.
    if (registryErrorCode(manifest.body) === 'NAME_UNKNOWN') {
      throw new ChartSourceError(ChartSourceCode.ChartNotFound, ref, `the registry has no repository ${oci.repository}`, { status: 404 })
    }
    throw new ChartSourceError(ChartSourceCode.VersionNotFound, ref, `the registry has no tag ${oci.tag} in ${oci.repository}`, {
      status: 404,
    })
  }
  if (manifest.status !== 200) throw statusError(manifest, ref, 'the manifest', ChartSourceCode.VersionNotFound)
  let layer: ReturnType<typeof chartLayer>
  try {
    layer = chartLayer(manifest.body)
  } catch (err) {
    if (err instanceof OciError) throw new ChartSourceError(ChartSourceCode.BadArchive, ref, `${oci.repository}:${oci.tag}: ${err.message}`)
    throw err
  }
  if (layer.size > deps.maxArchiveBytes) {
    throw new ChartSourceError(
      ChartSourceCode.TooLarge,
      ref,
      `the chart layer of ${layer.size} bytes is larger than the limit of ${deps.maxArchiveBytes} bytes`,
    )
  }
  const blob = await registryGet(s, `blobs/${layer.digest}`, undefined, deps.maxArchiveBytes, 'chart layer')
  if (blob.status !== 200) throw statusError(blob, ref, 'the chart layer', ChartSourceCode.BadRepository)
  if (blob.body.length !== layer.size) {
    throw new ChartSourceError(
      ChartSourceCode.DigestMismatch,
      ref,
      `the chart layer has ${blob.body.length} bytes, the manifest says ${layer.size}`,
    )
  }
  return { archive: blob.body, digest: verifiedDigest(blob.body, layer.digest, ref, `${oci.registry}/${oci.repository}@${layer.digest}`) }
}
