// status.trackedKinds: every kind a TemplateInstance has ever rendered, as
// "<apiVersion>/<kind>": "v1/ConfigMap", "apps/v1/Deployment". The reconciler
// keys its drift watches by these strings and finds the objects to clean up
// through them.
//
// Before its first apply of a kind, the reconciler records the list in the
// instance's tracked-kinds annotation, in the same patch that adds its
// finalizer (a status write could not share that request); recordedKinds
// reads all three places.
//
// Earlier releases wrote the same list as status.trackedGVKs with the core
// group spelled as a leading slash ("/v1/ConfigMap"). trackedKindsOf reads
// both fields and both spellings, so an upgraded reconciler never loses track
// of a kind an older one recorded (docs/tracked-kinds.md).

import { checkKind, gvkString, IdentityError, parseApiVersion } from './identity.ts'
import { ANNOTATION_TRACKED_KINDS } from './names.ts'
import type { TemplateInstance, TemplateInstanceStatus } from './templateinstance.ts'

export class TrackedKindError extends IdentityError {
  override readonly name = 'TrackedKindError'
}

/** "v1/ConfigMap", "apps/v1/Deployment". */
export function trackedKind(apiVersion: string, kind: string): string {
  try {
    parseApiVersion(apiVersion)
    checkKind(kind)
  } catch (e) {
    throw e instanceof IdentityError ? new TrackedKindError(e.message) : e
  }
  return `${apiVersion}/${kind}`
}

/** Inverse of trackedKind; also accepts the older "/v1/ConfigMap" spelling. */
export function parseTrackedKind(s: string): { apiVersion: string; kind: string } {
  const parts = s.split('/')
  const kind = parts.pop() ?? ''
  // The older spelling: an empty group before the version.
  if (parts.length === 2 && parts[0] === '') parts.shift()
  const apiVersion = parts.join('/')
  if (parts.length < 1 || parts.length > 2 || parts.some((p) => p === '') || kind === '') {
    throw new TrackedKindError(`${JSON.stringify(s)} is not "<apiVersion>/<kind>" (e.g. "v1/ConfigMap", "apps/v1/Deployment")`)
  }
  return { apiVersion, kind }
}

/** An entry in today's spelling; one that does not parse is kept as written, so nothing recorded is dropped. */
export function normalizeTrackedKind(s: string): string {
  try {
    const { apiVersion, kind } = parseTrackedKind(s)
    return `${apiVersion}/${kind}`
  } catch {
    return s
  }
}

/** The tracked kinds of a status, from trackedKinds and the older trackedGVKs, in today's spelling, sorted, once each. */
export function trackedKindsOf(status: Pick<TemplateInstanceStatus, 'trackedKinds' | 'trackedGVKs'> | undefined): string[] {
  const all = [...(status?.trackedKinds ?? []), ...(status?.trackedGVKs ?? [])].map(normalizeTrackedKind)
  return [...new Set(all)].sort()
}

/**
 * The kinds of the tracked-kinds annotation's value ("v1/ConfigMap,apps/v1/Deployment"),
 * in today's spelling. Anyone who may edit the instance may edit the
 * annotation, and we only ever write well-formed entries: one that does not
 * parse is skipped rather than kept.
 */
export function parseTrackedKindsAnnotation(value: string | undefined): string[] {
  const out: string[] = []
  for (const entry of (value ?? '').split(',')) {
    try {
      const { apiVersion, kind } = parseTrackedKind(entry.trim())
      out.push(trackedKind(apiVersion, kind))
    } catch {
      // not one of ours
    }
  }
  return out
}

/** The annotation's value for a list of tracked kinds. */
export function trackedKindsAnnotation(kinds: readonly string[]): string {
  return [...new Set(kinds)].sort().join(',')
}

/** Every kind an instance records, from its status (both fields) and its tracked-kinds annotation, sorted, once each. */
export function recordedKinds(inst: Pick<TemplateInstance, 'metadata' | 'status'>): string[] {
  const annotated = parseTrackedKindsAnnotation(inst.metadata?.annotations?.[ANNOTATION_TRACKED_KINDS])
  return [...new Set([...trackedKindsOf(inst.status), ...annotated])].sort()
}

/** True when every entry of the older trackedGVKs is also in trackedKinds, so the older field can go. */
export function legacyTrackedKindsCopied(status: Pick<TemplateInstanceStatus, 'trackedKinds' | 'trackedGVKs'> | undefined): boolean {
  const have = new Set(status?.trackedKinds ?? [])
  return (status?.trackedGVKs ?? []).every((g) => have.has(normalizeTrackedKind(g)))
}

/** The older trackedGVKs spelling of an entry ("/v1/ConfigMap"), for a CRD that predates trackedKinds. */
export function legacyTrackedKind(s: string): string {
  const { apiVersion, kind } = parseTrackedKind(s)
  return gvkString(apiVersion, kind)
}
