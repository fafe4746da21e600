// .Capabilities of a chart render from the cluster, as `helm install` builds
// them: the API server's /version and every served group/version with its
// kinds (discovery). Read at most once per ttl (5 minutes by default) and
// shared by every render; concurrent callers share one read. A group/version
// whose discovery fails (an aggregated API that is down) is left out, as
// Helm tolerates a partial discovery.

import type { HelmCapabilities } from '../helm/render/index.ts'
import type { KubeClient } from '../kube/client.ts'
import { apiVersionsFromDiscovery, type DiscoveredGroupVersion } from '../render/helm.ts'

export interface ClusterCapabilities {
  get(): Promise<HelmCapabilities>
}

interface ApiVersions {
  versions?: string[]
}
interface ApiGroupList {
  groups?: { name: string; versions?: { groupVersion: string }[] }[]
}
interface ApiResourceList {
  resources?: { name: string; kind: string }[]
}

async function discover(client: KubeClient): Promise<HelmCapabilities> {
  const [version, core, groups] = await Promise.all([
    client.get<{ gitVersion?: string }>('/version'),
    client.get<ApiVersions>('/api'),
    client.get<ApiGroupList>('/apis'),
  ])
  const paths = [
    ...(core.versions ?? []).map((v) => ({ groupVersion: v, path: `/api/${v}` })),
    ...(groups.groups ?? []).flatMap((g) =>
      (g.versions ?? []).map((v) => ({ groupVersion: v.groupVersion, path: `/apis/${v.groupVersion}` })),
    ),
  ]
  const discovered = await Promise.all(
    paths.map(async ({ groupVersion, path }): Promise<DiscoveredGroupVersion | undefined> => {
      try {
        const list = await client.get<ApiResourceList>(path)
        // Subresources (deployments/scale) are not kinds of their own.
        const kinds = [...new Set((list.resources ?? []).filter((r) => !r.name.includes('/')).map((r) => r.kind))]
        return { groupVersion, kinds }
      } catch {
        return undefined
      }
    }),
  )
  if (typeof version.gitVersion !== 'string' || version.gitVersion === '') throw new Error('the API server /version has no gitVersion')
  return {
    kubeVersion: version.gitVersion,
    apiVersions: apiVersionsFromDiscovery(discovered.filter((d): d is DiscoveredGroupVersion => d !== undefined)),
  }
}

export function clusterCapabilities(client: KubeClient, opts: { ttlMs?: number; now?: () => number } = {}): ClusterCapabilities {
  const ttlMs = opts.ttlMs ?? 5 * 60_000
  const now = opts.now ?? Date.now
  let cached: { at: number; value: HelmCapabilities } | undefined
  let inflight: Promise<HelmCapabilities> | undefined
  return {
    get() {
      if (cached !== undefined && now() - cached.at < ttlMs) return Promise.resolve(cached.value)
      inflight ??= discover(client)
        .then((value) => {
          cached = { at: now(), value }
          return value
        })
        .finally(() => {
          inflight = undefined
        })
      return inflight
    },
  }
}
