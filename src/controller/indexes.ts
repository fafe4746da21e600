// How the reconciler's caches are indexed, so that an event touches only the
// objects it concerns (manager.ts). Namespaces need no index of their own: the
// cache store keeps one for every collection.

import type { TemplateInstance } from '../api/templateinstance.ts'
import { LABEL_INSTANCE_UID } from '../api/names.ts'
import { namespacedKey } from '../api/identity.ts'
import type { KubeObject } from '../api/meta.ts'
import type { Indexers } from '../kube/store.ts'

/** Index of the instance cache: the Template an instance's templateRef names, as its namespacedKey. */
export const INDEX_TEMPLATE = 'template'

export const instanceIndexers: Indexers<TemplateInstance> = {
  [INDEX_TEMPLATE]: (i) => {
    const ref = i.spec?.templateRef
    return ref ? [namespacedKey(ref.namespace, ref.name)] : []
  },
}

/**
 * Index of the drift caches: the value of the instance-uid label, under the
 * label's own name, so that an instance finds its rendered objects by its UID.
 */
export const renderedObjectIndexers: Indexers<KubeObject> = {
  [LABEL_INSTANCE_UID]: (o) => [o.metadata?.labels?.[LABEL_INSTANCE_UID]],
}
