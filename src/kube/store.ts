// Objects of one collection by "namespace/name" (cluster-scoped: "name"), as a
// list+watch cache holds them, with a second index by namespace then name.
// The admission path looks up by namespace and name several times per
// request; building the "namespace/name" string and hashing it anew each time
// cost about three times as much as two lookups of strings it already has.

import { namespacedKey } from '../api/identity.ts'
import type { KubeObject } from '../api/meta.ts'

/** What the store reads of an object: its metadata's namespace and name. */
type StoredObject = Pick<KubeObject, 'metadata'>

/** The key an object is stored under: the namespacedKey of its metadata. */
export function storeKey(obj: StoredObject): string {
  return namespacedKey(obj.metadata?.namespace, obj.metadata?.name ?? '')
}

export class ObjectStore<T extends StoredObject> {
  private readonly byKey = new Map<string, T>()
  /** namespace ("" for cluster-scoped) -> name -> object. */
  private readonly byNamespace = new Map<string, Map<string, T>>()

  /** Stores obj under its own key (storeKey) and returns the object it replaced. */
  put(obj: T): T | undefined {
    const key = storeKey(obj)
    const old = this.byKey.get(key)
    this.byKey.set(key, obj)
    const namespace = obj.metadata?.namespace ?? ''
    let names = this.byNamespace.get(namespace)
    if (names === undefined) {
      names = new Map()
      this.byNamespace.set(namespace, names)
    }
    names.set(obj.metadata?.name ?? '', obj)
    return old
  }

  /** Removes the object stored under key and returns it. */
  delete(key: string): T | undefined {
    const old = this.byKey.get(key)
    if (old === undefined) return undefined
    this.byKey.delete(key)
    const namespace = old.metadata?.namespace ?? ''
    const names = this.byNamespace.get(namespace)
    if (names !== undefined) {
      names.delete(old.metadata?.name ?? '')
      // An emptied namespace does not keep its map, so deleted namespaces cost nothing.
      if (names.size === 0) this.byNamespace.delete(namespace)
    }
    return old
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.byNamespace.get(namespace || '')?.get(name)
  }

  getByKey(key: string): T | undefined {
    return this.byKey.get(key)
  }

  keys(): IterableIterator<string> {
    return this.byKey.keys()
  }

  values(): IterableIterator<T> {
    return this.byKey.values()
  }

  get size(): number {
    return this.byKey.size
  }
}
