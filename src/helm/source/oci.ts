// The pure parts of pulling a chart from an OCI registry as Helm does:
// the reference `<url>/<name>:<version>`, the image manifest with the Helm
// config and chart layer media types, and the WWW-Authenticate challenge.

export const HELM_CONFIG_MEDIA_TYPE = 'application/vnd.cncf.helm.config.v1+json'
export const HELM_CHART_LAYER_MEDIA_TYPE = 'application/vnd.cncf.helm.chart.content.v1.tar+gzip'
/** Charts pushed by very old Helm versions; Helm still pulls them. */
export const LEGACY_CHART_LAYER_MEDIA_TYPE = 'application/tar+gzip'
export const OCI_MANIFEST_MEDIA_TYPE = 'application/vnd.oci.image.manifest.v1+json'

export class OciError extends Error {
  override readonly name = 'OciError'
}

export interface OciReference {
  /** host[:port] */
  readonly registry: string
  /** Repository path inside the registry, e.g. "charts/redis". */
  readonly repository: string
  /** The version as a tag: "+" is not allowed in tags, Helm stores it as "_". */
  readonly tag: string
}

// The distribution spec's repository name grammar.
const COMPONENT = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*$/
const TAG = /^[\w][\w.-]{0,127}$/

/** `oci://host[:port]/path` + chart name + version, as Helm builds the reference. */
export function ociReference(url: string, name: string, version: string): OciReference {
  if (!url.startsWith('oci://')) throw new OciError(`not an oci:// URL`)
  const rest = url.slice('oci://'.length).replace(/\/+$/, '')
  const slash = rest.indexOf('/')
  const registry = slash === -1 ? rest : rest.slice(0, slash)
  const path = slash === -1 ? '' : rest.slice(slash + 1)
  if (registry === '' || !/^[A-Za-z0-9.-]+(:[0-9]+)?$|^\[[0-9a-fA-F:]+\](:[0-9]+)?$/.test(registry)) {
    throw new OciError(`registry host ${JSON.stringify(registry)} is not a host[:port]`)
  }
  const repository = path === '' ? name : `${path}/${name}`
  for (const c of repository.split('/')) {
    if (!COMPONENT.test(c)) throw new OciError(`repository ${JSON.stringify(repository)} is not a valid OCI repository name`)
  }
  const tag = version.replaceAll('+', '_')
  if (!TAG.test(tag)) throw new OciError(`version ${JSON.stringify(version)} is not a valid OCI tag`)
  return { registry, repository, tag }
}

export interface Descriptor {
  readonly mediaType: string
  readonly digest: string
  readonly size: number
}

const DIGEST = /^sha256:[0-9a-f]{64}$/

function descriptor(v: unknown, what: string): Descriptor {
  const d = v as { mediaType?: unknown; digest?: unknown; size?: unknown } | null
  if (typeof d !== 'object' || d === null) throw new OciError(`${what} is not a descriptor`)
  if (typeof d.mediaType !== 'string') throw new OciError(`${what} has no mediaType`)
  if (typeof d.digest !== 'string' || !DIGEST.test(d.digest)) throw new OciError(`${what} has no sha256 digest`)
  if (typeof d.size !== 'number' || !Number.isSafeInteger(d.size) || d.size < 0) throw new OciError(`${what} has no valid size`)
  return { mediaType: d.mediaType, digest: d.digest, size: d.size }
}

/** The chart layer of a Helm chart manifest; errors say what is missing, as `helm pull` refuses such manifests. */
export function chartLayer(manifestBytes: Buffer): Descriptor {
  let m: unknown
  try {
    m = JSON.parse(manifestBytes.toString('utf8'))
  } catch {
    throw new OciError('the manifest is not JSON')
  }
  const manifest = m as { mediaType?: unknown; config?: unknown; layers?: unknown } | null
  if (typeof manifest !== 'object' || manifest === null) throw new OciError('the manifest is not a JSON object')
  if (manifest.mediaType !== undefined && manifest.mediaType !== OCI_MANIFEST_MEDIA_TYPE) {
    throw new OciError(`the manifest has media type ${JSON.stringify(manifest.mediaType)}, not an OCI image manifest (is it a Helm chart?)`)
  }
  const config = descriptor(manifest.config, 'the manifest config')
  if (config.mediaType !== HELM_CONFIG_MEDIA_TYPE) {
    throw new OciError(
      `the manifest config has media type ${JSON.stringify(config.mediaType)}, not ${HELM_CONFIG_MEDIA_TYPE}: not a Helm chart`,
    )
  }
  if (!Array.isArray(manifest.layers)) throw new OciError('the manifest has no layers')
  const layers = manifest.layers.map((l, i) => descriptor(l, `layer ${i}`))
  const layer =
    layers.find((l) => l.mediaType === HELM_CHART_LAYER_MEDIA_TYPE) ?? layers.find((l) => l.mediaType === LEGACY_CHART_LAYER_MEDIA_TYPE)
  if (layer === undefined) throw new OciError(`the manifest has no layer of media type ${HELM_CHART_LAYER_MEDIA_TYPE}`)
  return layer
}

export type Challenge =
  | { readonly scheme: 'basic' }
  | { readonly scheme: 'bearer'; readonly realm: string; readonly service: string | undefined; readonly scope: string | undefined }

/** A WWW-Authenticate header; undefined when it offers neither Basic nor Bearer. */
export function parseChallenge(header: string | null): Challenge | undefined {
  if (header === null) return undefined
  const m = /^\s*(\w+)\s*(.*)$/s.exec(header)
  if (m === null) return undefined
  const scheme = (m[1] ?? '').toLowerCase()
  if (scheme === 'basic') return { scheme: 'basic' }
  if (scheme !== 'bearer') return undefined
  const params = new Map<string, string>()
  for (const p of (m[2] ?? '').matchAll(/(\w+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/g)) {
    params.set((p[1] ?? '').toLowerCase(), (p[2] ?? p[3] ?? '').replace(/\\(.)/g, '$1'))
  }
  const realm = params.get('realm')
  if (realm === undefined || realm === '') return undefined
  return { scheme: 'bearer', realm, service: params.get('service'), scope: params.get('scope') }
}

/** The distribution error code of a registry error body ("MANIFEST_UNKNOWN", "NAME_UNKNOWN", ...), if it has one. */
export function registryErrorCode(body: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { errors?: { code?: unknown }[] }
    const code = parsed.errors?.[0]?.code
    return typeof code === 'string' ? code : undefined
  } catch {
    return undefined
  }
}
