// From decoded YAML documents to manifests the reconciler can apply: shape
// checks with messages that name the document, namespace defaulting and
// duplicate detection. Pure: the API's scope knowledge comes in as a function.

import { LIMITS } from '../api/schema.ts'
import { gvkString, IdentityError, objectKey, parseApiVersion } from '../api/identity.ts'
import type { IdentifiedObject, ObjectRef } from '../api/meta.ts'

/** A decoded document to check: one of a rendered YAML stream (YamlDocument), or of a chart template. */
export interface ManifestDocument {
  /** 1-based position among the rendered documents. */
  readonly document: number
  readonly value: unknown
  /** Line of the rendered stream where it starts. */
  readonly line?: number
  /** The chart template it came from, e.g. 'web/templates/deployment.yaml'; named instead of a line. */
  readonly source?: string
}

export interface RenderedObject {
  /** The manifest, metadata.namespace defaulted for namespaced kinds. Owned by the caller. */
  readonly object: IdentifiedObject
  /** Identity as status.renderedResources records it (no namespace for cluster-scoped kinds). */
  readonly ref: ObjectRef
  /** objectKey(ref). */
  readonly key: string
  /** gvkString: `apps/v1/Deployment`, core `/v1/ConfigMap`. */
  readonly gvk: string
  /** true: namespaced; false: cluster-scoped; undefined: the API does not know the kind. */
  readonly namespaced: boolean | undefined
  /** Position among the rendered documents, for messages. */
  readonly document: number
}

/** How the API scopes a kind; undefined when discovery does not know it. */
export type ScopeLookup = (apiVersion: string, kind: string) => boolean | undefined

export class ManifestError extends Error {
  override readonly name = 'ManifestError'
  readonly code = 'RENDERED_MANIFEST_INVALID'
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function describeShape(v: unknown): string {
  if (Array.isArray(v)) return 'a list'
  if (v === null) return 'null'
  return `a ${typeof v}`
}

/**
 * Checks each document and turns it into a RenderedObject. Throws
 * ManifestError with the document number, line and, once known, the kind.
 */
export function toRenderedObjects(
  docs: readonly ManifestDocument[],
  instanceNamespace: string,
  isNamespaced: ScopeLookup,
): RenderedObject[] {
  if (docs.length > LIMITS.renderedResources) {
    throw new ManifestError(
      `the Template renders ${docs.length} objects; at most ${LIMITS.renderedResources} are supported (status.renderedResources)`,
    )
  }
  const out: RenderedObject[] = []
  const seen = new Map<string, { document: number; source?: string }>()
  for (const doc of docs) {
    const obj = toManifest(doc)
    const { apiVersion, kind } = obj
    const namespaced = isNamespaced(apiVersion, kind)
    if (namespaced === true && obj.metadata.namespace === undefined) obj.metadata.namespace = instanceNamespace
    const namespace = namespaced === false ? undefined : obj.metadata.namespace
    const ref: ObjectRef =
      namespace === undefined ? { apiVersion, kind, name: obj.metadata.name } : { apiVersion, kind, namespace, name: obj.metadata.name }
    const rendered: RenderedObject = {
      object: obj,
      ref,
      key: objectKey(ref),
      gvk: gvkString(apiVersion, kind),
      namespaced,
      document: doc.document,
    }
    // One object in the cluster whatever the version it is written in, so the version is not part of this check.
    const sameObject = `${parseApiVersion(apiVersion).group}/${kind}/${namespace ?? ''}/${obj.metadata.name}`
    const earlier = seen.get(sameObject)
    if (earlier !== undefined) {
      const from = earlier.source === undefined || doc.source === undefined ? '' : ` (${earlier.source}, ${doc.source})`
      throw new ManifestError(
        `rendered documents ${earlier.document} and ${doc.document}${from} are the same object ${describeRef(ref)}; each object may be rendered once`,
      )
    }
    seen.set(sameObject, { document: doc.document, ...(doc.source === undefined ? {} : { source: doc.source }) })
    out.push(rendered)
  }
  return out
}

function describeRef(ref: ObjectRef): string {
  return `${ref.apiVersion} ${ref.kind} ${ref.namespace === undefined ? '' : `${ref.namespace}/`}${ref.name}`
}

/** Validates one document and returns it typed; metadata.namespace "" or null is normalized to absent. */
function toManifest(doc: ManifestDocument): IdentifiedObject {
  const origin = doc.source ?? `line ${doc.line ?? 1}`
  const where = (what?: string): string => `rendered document ${doc.document} (${origin}${what === undefined ? '' : `, ${what}`})`
  const v = doc.value
  if (!isMapping(v)) throw new ManifestError(`${where()}: is ${describeShape(v)}, not a mapping`)
  const { apiVersion, kind, metadata } = v
  if (typeof apiVersion !== 'string' || apiVersion === '') throw new ManifestError(`${where()}: apiVersion is missing`)
  if (typeof kind !== 'string' || kind === '') throw new ManifestError(`${where()}: kind is missing`)
  const what = `${apiVersion} ${kind}`
  try {
    gvkString(apiVersion, kind)
  } catch (err) {
    if (err instanceof IdentityError) throw new ManifestError(`${where(what)}: ${err.message}`)
    throw err
  }
  if (!isMapping(metadata)) throw new ManifestError(`${where(what)}: metadata is missing or not a mapping`)
  const { name, namespace } = metadata
  if (name !== undefined && name !== null && typeof name !== 'string') {
    throw new ManifestError(`${where(what)}: metadata.name must be a string, got ${JSON.stringify(name)}${yaml11Hint(name)}`)
  }
  if (typeof name !== 'string' || name === '') {
    const hint = typeof metadata['generateName'] === 'string' ? ' (generateName cannot be used: objects are applied by name)' : ''
    throw new ManifestError(`${where(what)}: metadata.name is missing${hint}`)
  }
  if (name.includes('/')) throw new ManifestError(`${where(what)}: metadata.name ${JSON.stringify(name)} must not contain "/"`)
  if (namespace === '' || namespace === null) {
    delete metadata['namespace']
  } else if (namespace !== undefined && (typeof namespace !== 'string' || namespace.includes('/'))) {
    throw new ManifestError(
      `${where(`${what} ${name}`)}: metadata.namespace ${JSON.stringify(namespace)} is not a namespace name${yaml11Hint(namespace)}`,
    )
  }
  return v as IdentifiedObject
}

/** Unquoted y, n, yes, no, on, off and numbers are not strings in YAML 1.1; say so where a name was expected. */
function yaml11Hint(v: unknown): string {
  return typeof v === 'boolean' || typeof v === 'number'
    ? ' (an unquoted YAML value such as n, no, off or 0644 is not a string: quote it)'
    : ''
}
