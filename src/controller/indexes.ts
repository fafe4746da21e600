// How the reconciler's caches are indexed, so that an event touches only the
// objects it concerns (manager.ts). Namespaces need no index of their own: the
// cache store keeps one for every collection.

import type { TemplateInstance } from '../api/templateinstance.ts'
import { LABEL_INSTANCE_UID } from '../api/names.ts'
import { namespacedKey } from '../api/identity.ts'
import type { KubeObject } from '../api/meta.ts'
import type { Indexers } from '../kube/store.ts'
import { grantRefusalOf } from '../api/conditions.ts'

/**
 * Index of the instance cache: the Templates an instance uses, as their
 * namespacedKey: the one its templateRef names, and the one its objects were
 * last rendered from (status.resolvedTemplateRef). The second keeps a
 * Template, and with it the protection of what it rendered, from being
 * deleted while an instance's objects still carry it (docs/security.md).
 */
export const INDEX_TEMPLATE = 'template'

export const instanceIndexers: Indexers<TemplateInstance> = {
  [INDEX_TEMPLATE]: (i) => {
    const keys: string[] = []
    for (const ref of [i.spec?.templateRef, i.status?.resolvedTemplateRef]) {
      if (typeof ref?.name !== 'string' || typeof ref.namespace !== 'string') continue
      const key = namespacedKey(ref.namespace, ref.name)
      if (!keys.includes(key)) keys.push(key)
    }
    return keys
  },
}

/**
 * Index of the drift caches: the value of the instance-uid label, under the
 * label's own name, so that an instance finds its rendered objects by its UID.
 */
export const renderedObjectIndexers: Indexers<KubeObject> = {
  [LABEL_INSTANCE_UID]: (o) => [o.metadata?.labels?.[LABEL_INSTANCE_UID]],
}

/** The Templates an instance uses, as INDEX_TEMPLATE keys them. */
export function templatesOf(i: TemplateInstance): string[] {
  return instanceIndexers[INDEX_TEMPLATE]?.(i).filter((k): k is string => k !== undefined) ?? []
}

/**
 * The Templates an instance update concerns although it is not theirs to
 * render: one the instance stopped using (a deletion may be waiting for it),
 * and the one it names when it started or stopped being refused for reaching
 * beyond its namespace (the Template's InstancesWithinGrants condition).
 */
export function templatesToRecheck(i: TemplateInstance, old: TemplateInstance): string[] {
  const now = templatesOf(i)
  const out = new Set(templatesOf(old).filter((k) => !now.includes(k)))
  const before = grantRefusalOf(old)
  const after = grantRefusalOf(i)
  if (before?.reason !== after?.reason || before?.message !== after?.message) {
    for (const ref of [i.spec?.templateRef, old.spec?.templateRef])
      if (typeof ref?.name === 'string' && typeof ref.namespace === 'string') out.add(namespacedKey(ref.namespace, ref.name))
  }
  return [...out]
}
