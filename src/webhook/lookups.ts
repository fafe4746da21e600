// AdmissionLookups over in-memory stores. Every method is a Map lookup: the
// admission path makes no API call. The stores are Reflectors in the server
// and plain Maps in the benchmark; both hold objects cut down by transforms.ts.

import type { AdmissionLookups } from '../admission/decision.ts'
import type { GroupVersionResource } from '../admission/types.ts'
import type { KubeObject } from '../api/meta.ts'
import type { Template } from '../api/template.ts'
import type { TemplateInstance } from '../api/templateinstance.ts'
import type { CompiledIgnore } from '../fieldpath/compile.ts'
import type { IgnoreCache } from '../drift/ignore-cache.ts'
import type { SlimNamespace } from './transforms.ts'

/** The read side of a Reflector. */
export interface StoreReader<T> {
  get(namespace: string | undefined, name: string): T | undefined
}

export interface LookupSources {
  readonly templates: StoreReader<Template>
  readonly instances: StoreReader<TemplateInstance>
  readonly namespaces: StoreReader<SlimNamespace>
  readonly ignore: IgnoreCache
  /** Scale targets by "<group>/<resource>" (core group empty), e.g. "apps/deployments". */
  readonly scaleTargets?: ReadonlyMap<string, StoreReader<KubeObject>>
  /** Rendered Pods (for evictions and bindings). */
  readonly pods?: StoreReader<KubeObject>
}

export const scaleTargetKey = (group: string, resource: string): string => `${group}/${resource}`

export function createLookups(src: LookupSources): AdmissionLookups {
  return {
    getInstance: (namespace: string, name: string): TemplateInstance | undefined => src.instances.get(namespace, name),
    getTemplate: (namespace: string, name: string): Template | undefined => src.templates.get(namespace, name),
    getIgnore: (template: Template): CompiledIgnore => src.ignore.get(template),
    isNamespaceTerminating: (name: string): boolean => {
      const ns = src.namespaces.get(undefined, name)
      // Unknown namespaces count as live: a fresh namespace may not have reached the cache yet.
      if (ns === undefined) return false
      return ns.status?.phase === 'Terminating' || typeof ns.metadata.deletionTimestamp === 'string'
    },
    getScaleTarget: (resource: GroupVersionResource, namespace: string, name: string): KubeObject | undefined =>
      src.scaleTargets?.get(scaleTargetKey(resource.group, resource.resource))?.get(namespace, name),
    ...(src.pods !== undefined && { getPod: (namespace: string, name: string) => src.pods?.get(namespace, name) }),
  }
}
