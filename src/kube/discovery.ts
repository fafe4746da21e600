// REST mapping: apiVersion + kind -> resource path and scope, from API
// discovery. Cached per group/version; a miss refetches once so that a CRD
// installed after start is found.

import { parseApiVersion } from '../api/identity.ts'
import type { KubeClient } from './client.ts'

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

export class UnknownKindError extends Error {
  constructor(apiVersion: string, kind: string, detail: string) {
    super(`no resource for ${kind} in ${apiVersion}: ${detail}`)
    this.name = 'UnknownKindError'
  }
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
    if (cached && Date.now() - cached.at < 2000) throw new UnknownKindError(apiVersion, kind, 'kind not served')
    let byKind: Map<string, ResourceMapping>
    try {
      byKind = await this.load(apiVersion)
    } catch (e) {
      throw new UnknownKindError(apiVersion, kind, (e as Error).message)
    }
    const m = byKind.get(kind)
    if (!m) throw new UnknownKindError(apiVersion, kind, 'kind not served')
    return m
  }

  /** Forgets cached discovery (e.g. after a CRD change). */
  invalidate(apiVersion?: string): void {
    if (apiVersion) this.cache.delete(apiVersion)
    else this.cache.clear()
  }
}

/** Collection or object path for a mapping: /api/v1/namespaces/ns/configmaps[/name]. */
export function resourcePath(m: ResourceMapping, namespace?: string, name?: string): string {
  const base = m.group ? `/apis/${m.group}/${m.version}` : `/api/${m.version}`
  const ns = m.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : ''
  return `${base}${ns}/${m.resource}${name !== undefined ? `/${encodeURIComponent(name)}` : ''}`
}
