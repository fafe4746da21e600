// The API server's discovery as it changes: metadata-only watches of
// CustomResourceDefinitions and APIServices. After the initial lists, every
// one added, changed or deleted names an API group whose kinds may now be
// served differently; the manager drops what it knows of that group and
// brings back the instances that waited for one of its kinds. A CRD serves
// its kinds once Established, which is an update of its own, so every event
// counts. Without RBAC to list them (403) a watch stops after one log line,
// and instances rely on their fallback requeue (docs/status-and-discovery.md).

import type { Logger } from 'pino'
import type { KubeObject } from '../api/meta.ts'
import type { KubeClient } from '../kube/client.ts'
import { KubeApiError } from '../kube/errors.ts'
import { Reflector } from '../kube/reflector.ts'

export interface DiscoveryWatchDeps {
  readonly client: KubeClient
  readonly log: Logger
  /** Called when a watch had to recover (a relist, a reconnect). */
  readonly onRecover: (what: string, detail: string) => void
  /** Discovery of `group` ("" for the core group) may have changed. */
  readonly changed: (group: string) => void
}

/** What is watched, and the RBAC resource that reading it needs. */
export const DISCOVERY_SOURCES = Object.freeze([
  { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions' },
  { group: 'apiregistration.k8s.io', resource: 'apiservices', path: '/apis/apiregistration.k8s.io/v1/apiservices' },
])

/**
 * The API group a CRD or an APIService is about, from its name, which the
 * API server requires to be "<plural>.<group>" for a CRD and
 * "<version>.<group>" for an APIService ("v1." for the core group).
 */
export function discoveryGroupOf(name: string): string | undefined {
  const dot = name.indexOf('.')
  return dot < 0 ? undefined : name.slice(dot + 1)
}

/** The name is all the watch needs: the cache keeps no managedFields or labels. */
function nameOnly(o: KubeObject): KubeObject {
  const m = o.metadata ?? {}
  return { metadata: { name: m.name, uid: m.uid, resourceVersion: m.resourceVersion } } as KubeObject
}

export class DiscoveryWatch {
  private readonly reflectors: readonly Reflector[]

  constructor(deps: DiscoveryWatchDeps) {
    this.reflectors = DISCOVERY_SOURCES.map((s) => {
      let refused = false
      const r: Reflector = new Reflector(deps.client, {
        path: s.path,
        name: `discovery ${s.resource}`,
        metadataOnly: true,
        transform: nameOnly,
        onRecover: (what, detail) => {
          if (r.lastError instanceof KubeApiError && r.lastError.code === 403) {
            if (refused) return
            refused = true
            deps.log.warn(
              { resource: `${s.resource}.${s.group}`, err: r.lastError.apiMessage },
              `cannot watch ${s.resource}: a kind installed later is picked up by the fallback requeue only; grant get, list and watch on ${s.resource}.${s.group}`,
            )
            void r.stop()
            return
          }
          deps.onRecover(what, detail)
        },
      })
      const onEvent = (o: KubeObject): void => {
        // The initial list shows what is, not what changed: the mappers learn it on demand.
        if (!r.hasSynced()) return
        const group = discoveryGroupOf(o.metadata?.name ?? '')
        if (group !== undefined) deps.changed(group)
      }
      r.on('add', onEvent).on('update', onEvent).on('delete', onEvent)
      return r
    })
  }

  start(): void {
    for (const r of this.reflectors) r.start()
  }

  async stop(): Promise<void> {
    await Promise.all(this.reflectors.map((r) => r.stop()))
  }
}
