// REST mapping: apiVersion + kind -> resource path and scope, from API
// discovery. Cached per group/version; a miss refetches once so that a CRD
// installed after start is found, and a discovery change (a CRD or an
// APIService added, changed or deleted) drops the group's entries.

import { groupOf, parseApiVersion } from '../api/identity.ts'
import type { KubeClient } from './client.ts'
import { KubeApiError } from './errors.ts'

export interface ResourceMapping {
  group: string
  version: string
  kind: string
  resource: string
  namespaced: boolean
  verbs: readonly string[]
}

interface APIResourceList {
  resources: { name: string; kind: string; namespaced: boolean; verbs: string[] }[]
}

/** What mapping() says when discovery found the group/version but not the kind. */
export const KIND_NOT_SERVED = 'kind not served'

export class UnknownKindError extends Error {
  readonly apiVersion: string
  readonly kind: string
  /** Why: KIND_NOT_SERVED, or the discovery request's error. */
  readonly detail: string

  constructor(apiVersion: string, kind: string, detail: string) {
    super(`no resource for ${kind} in ${apiVersion}: ${detail}`)
    this.name = 'UnknownKindError'
    this.apiVersion = apiVersion
    this.kind = kind
    this.detail = detail
  }
}

/**
 * Whether a request failed because the API server does not serve the kind:
 * discovery does not list it, or its path answers 404 without a Status
 * object (the server's "404 page not found"). A 404 with a Status (reason
 * NotFound) is about an object or its namespace, not the kind.
 */
export function isKindNotServed(e: unknown): boolean {
  if (e instanceof UnknownKindError) return true
  return e instanceof KubeApiError && e.code === 404 && e.reason !== 'NotFound'
}

export class RestMapper {
  private readonly client: KubeClient
  private readonly cache = new Map<string, { at: number; byKind: Map<string, ResourceMapping> }>()
  private readonly inflight = new Map<string, Promise<Map<string, ResourceMapping>>>()

  constructor(client: KubeClient) {
    this.client = client
  }

  private async fetchGroupVersion(apiVersion: string): Promise<Map<string, ResourceMapping>> {
    // An apiVersion that is not "version" or "group/version" throws here, inside mapping()'s UnknownKindError.
    const { group, version } = parseApiVersion(apiVersion)
    const path = group ? `/apis/${group}/${version}` : `/api/${version}`
    const list = await this.client.get<APIResourceList>(path)
    const byKind = new Map<string, ResourceMapping>()
    for (const r of list.resources) {
      if (r.name.includes('/')) continue // subresources
      byKind.set(r.kind, { group, version, kind: r.kind, resource: r.name, namespaced: r.namespaced, verbs: r.verbs })
    }
    this.cache.set(apiVersion, { at: Date.now(), byKind })
    return byKind
  }

  private load(apiVersion: string): Promise<Map<string, ResourceMapping>> {
    let p = this.inflight.get(apiVersion)
    if (!p) {
      p = this.fetchGroupVersion(apiVersion).finally(() => this.inflight.delete(apiVersion))
      this.inflight.set(apiVersion, p)
    }
    return p
  }

  /** The mapping if discovery for its group/version is already cached. */
  cached(apiVersion: string, kind: string): ResourceMapping | undefined {
    return this.cache.get(apiVersion)?.byKind.get(kind)
  }

  async mapping(apiVersion: string, kind: string): Promise<ResourceMapping> {
    const cached = this.cache.get(apiVersion)
    const hit = cached?.byKind.get(kind)
    if (hit) return hit
    // Refetch on a miss, at most once per 2 s per group/version.
    if (cached && Date.now() - cached.at < 2000) throw new UnknownKindError(apiVersion, kind, KIND_NOT_SERVED)
    let byKind: Map<string, ResourceMapping>
    try {
      byKind = await this.load(apiVersion)
    } catch (e) {
      // A group/version the server does not serve answers 404: a plain miss, not a failed discovery.
      throw new UnknownKindError(apiVersion, kind, e instanceof KubeApiError && e.code === 404 ? KIND_NOT_SERVED : (e as Error).message)
    }
    const m = byKind.get(kind)
    if (!m) throw new UnknownKindError(apiVersion, kind, KIND_NOT_SERVED)
    return m
  }

  /** Forgets cached discovery (e.g. after a CRD change). */
  invalidate(apiVersion?: string): void {
    if (apiVersion) this.cache.delete(apiVersion)
    else this.cache.clear()
  }

  /** Forgets every cached version of one API group ("" for the core group). */
  invalidateGroup(group: string): void {
    for (const apiVersion of [...this.cache.keys()]) if (groupOf(apiVersion) === group) this.cache.delete(apiVersion)
  }
}

/** Collection or object path for a mapping: /api/v1/namespaces/ns/configmaps[/name]. */
export function resourcePath(m: ResourceMapping, namespace?: string, name?: string): string {
  const base = m.group ? `/apis/${m.group}/${m.version}` : `/api/${m.version}`
  const ns = m.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : ''
  return `${base}${ns}/${m.resource}${name !== undefined ? `/${encodeURIComponent(name)}` : ''}`
}
