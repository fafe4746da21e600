// Objects of one collection by "namespace/name" (cluster-scoped: "name"), as a
// list+watch cache holds them, with a second index by namespace then name.
// The admission path looks up by namespace and name several times per
// request; building the "namespace/name" string and hashing it anew each time
// cost about three times as much as two lookups of strings it already has.
//
// Further indexes are declared by name, as client-go's Indexers are: each maps
// an object to the values it is found under (a label's value, the Template an
// instance uses). A question such as "which instances use this Template"
// then costs the size of its answer, not a scan of every cached object.

import { namespacedKey } from '../api/identity.ts'
import type { KubeObject } from '../api/meta.ts'

/** What the store reads of an object: its metadata's namespace and name. */
type StoredObject = Pick<KubeObject, 'metadata'>

/** The key an object is stored under: the namespacedKey of its metadata. */
export function storeKey(obj: StoredObject): string {
  return namespacedKey(obj.metadata?.namespace, obj.metadata?.name ?? '')
}

/** Index name -> the values an object is indexed under (none: not in that index). */
export type Indexers<T> = Readonly<Record<string, (obj: T) => readonly (string | undefined)[]>>

/** value -> storeKey -> object, for one index. */
type Index<T> = Map<string, Map<string, T>>

export class ObjectStore<T extends StoredObject> {
  private readonly byKey = new Map<string, T>()
  /** namespace ("" for cluster-scoped) -> name -> object. */
  private readonly byNamespace = new Map<string, Map<string, T>>()
  private readonly indexes = new Map<string, Index<T>>()
  /** The declared indexes with their functions, walked on every put and delete. */
  private readonly indexList: { readonly values: (obj: T) => readonly (string | undefined)[]; readonly index: Index<T> }[] = []

  constructor(indexers: Indexers<T> = {}) {
    for (const [name, values] of Object.entries(indexers)) {
      const index: Index<T> = new Map()
      this.indexes.set(name, index)
      this.indexList.push({ values, index })
    }
  }

  /** Stores obj under its own key (storeKey) and returns the object it replaced. */
  put(obj: T): T | undefined {
    const key = storeKey(obj)
    const old = this.byKey.get(key)
    if (old !== undefined) this.unindex(key, old)
    this.byKey.set(key, obj)
    const namespace = obj.metadata?.namespace ?? ''
    let names = this.byNamespace.get(namespace)
    if (names === undefined) {
      names = new Map()
      this.byNamespace.set(namespace, names)
    }
    names.set(obj.metadata?.name ?? '', obj)
    this.index(key, obj)
    return old
  }

  /** Removes the object stored under key and returns it. */
  delete(key: string): T | undefined {
    const old = this.byKey.get(key)
    if (old === undefined) return undefined
    this.byKey.delete(key)
    this.unindex(key, old)
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

  /** The objects of one namespace ("" or undefined: the cluster-scoped ones). */
  inNamespace(namespace: string | undefined): T[] {
    return [...(this.byNamespace.get(namespace || '')?.values() ?? [])]
  }

  /** The objects the named index files under value; throws for an index that was not declared. */
  byIndex(name: string, value: string): T[] {
    return [...(this.indexOf(name).get(value)?.values() ?? [])]
  }

  /** The values the named index holds objects under. */
  indexValues(name: string): string[] {
    return [...this.indexOf(name).keys()]
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

  private indexOf(name: string): Index<T> {
    const index = this.indexes.get(name)
    if (index === undefined)
      throw new Error(`object store: no index named ${JSON.stringify(name)} (declared: ${[...this.indexes.keys()].join(', ') || 'none'})`)
    return index
  }

  private index(key: string, obj: T): void {
    for (const { values, index } of this.indexList) {
      for (const v of values(obj)) {
        if (v === undefined) continue
        let bucket = index.get(v)
        if (bucket === undefined) {
          bucket = new Map()
          index.set(v, bucket)
        }
        bucket.set(key, obj)
      }
    }
  }

  /** Index functions are pure, so the values old was filed under are computed again from old. */
  private unindex(key: string, old: T): void {
    for (const { values, index } of this.indexList) {
      for (const v of values(old)) {
        if (v === undefined) continue
        const bucket = index.get(v)
        if (bucket === undefined) continue
        bucket.delete(key)
        // Emptied values go, so an index never holds more entries than objects.
        if (bucket.size === 0) index.delete(v)
      }
    }
  }
}
