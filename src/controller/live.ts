// Where the reconciler reads live objects: a watch of the single object (an
// ownership conflict), then a drift watch's cache when it covers the kind and
// has synced, and only then the API server (for the first look of a pass, only
// when no synced cache covers the kind: see lookup). Objects from a cache are frozen
// copies; the apiVersion and kind asked for are put on them, as a watch of a
// kind returns them in its own.

import { objectKey, refOf } from '../api/identity.ts'
import type { IdentifiedObject } from '../api/meta.ts'
import { LABEL_INSTANCE_UID } from '../api/names.ts'
import { parseTrackedKind, trackedKind } from '../api/templateinstance-kinds.ts'
import { errorMessage } from '../kube/errors.ts'
import type { ObjectClient } from '../kube/objects.ts'
import { resourceVersionBefore } from '../kube/reflector.ts'
import type { WatchRegistry } from './registry.ts'

export interface LiveObjectsDeps {
  readonly objects: Pick<ObjectClient, 'get' | 'list'>
  /** Shared drift watches, keyed by tracked kind. */
  readonly drift: WatchRegistry
  /** Watches of single objects an instance is in an ownership conflict with, keyed by objectKey(). */
  readonly conflicts: WatchRegistry
}

export class LiveObjects {
  private readonly deps: LiveObjectsDeps

  constructor(deps: LiveObjectsDeps) {
    this.deps = deps
  }

  /**
   * The live object as far as the caches know it, without a request when they
   * can answer. `unconfirmed` says a synced drift cache does not hold it: that
   * cache is label-selected, so the object is absent or carries none of our
   * labels. The reconcile's dry-run tells which (diff.ts foundExisting) and
   * reads it only then, so that a new object costs no GET. `applied`, the
   * result of our own last apply of it, stands in for it while that cache has
   * not delivered the apply's resourceVersion yet (it lacks the object, or
   * holds an older copy): the watch lags behind the write, and its event for
   * the object is still to come.
   */
  async lookup(obj: IdentifiedObject, applied?: IdentifiedObject): Promise<{ live: IdentifiedObject | undefined; unconfirmed: boolean }> {
    const { apiVersion, kind } = obj
    // The watch of an object in conflict first: its events are the ones that
    // bring the instance back, so its copy is never older than the pass. The
    // drift watch may still hold the object as it was before its ownership
    // labels changed, and its event for the change goes to another owner.
    const ck = objectKey(refOf(obj))
    const byName = this.deps.conflicts.get(ck)
    if (byName && this.deps.conflicts.state(ck).synced) {
      const cached = byName.get(obj.metadata.namespace, obj.metadata.name)
      return { live: cached ? { ...(cached as IdentifiedObject), apiVersion, kind } : undefined, unconfirmed: false }
    }
    const g = trackedKind(apiVersion, kind)
    const watch = this.deps.drift.get(g)
    const cacheSynced = watch !== undefined && this.deps.drift.state(g).synced
    if (cacheSynced) {
      const cached = watch.get(obj.metadata.namespace, obj.metadata.name) as IdentifiedObject | undefined
      if (cached) {
        // A copy older than our apply: the cache listed or watched the object
        // before that write and its event is still to come (a pass that the
        // cache's first sync brought on sees this). What we wrote is live.
        const behind = applied && resourceVersionBefore(cached.metadata.resourceVersion, applied.metadata.resourceVersion)
        return { live: behind ? applied : { ...cached, apiVersion, kind }, unconfirmed: false }
      }
      return applied && watch.isBehind(applied.metadata.resourceVersion)
        ? { live: applied, unconfirmed: false }
        : { live: undefined, unconfirmed: true }
    }
    return { live: await this.read(obj), unconfirmed: false }
  }

  /** The live object, undefined when it does not exist: from a cache that holds it, else from the API server. */
  async get(obj: IdentifiedObject): Promise<IdentifiedObject | undefined> {
    const seen = await this.lookup(obj)
    return seen.unconfirmed ? this.read(obj) : seen.live
  }

  private async read(obj: IdentifiedObject): Promise<IdentifiedObject | undefined> {
    const got = await this.deps.objects.get(refOf(obj))
    return got ? { ...got, apiVersion: obj.apiVersion, kind: obj.kind } : undefined
  }

  /**
   * Every object that carries the instance's UID label, across `kinds`
   * (tracked kinds). With preferCache a synced drift watch answers; otherwise a
   * list per kind. A kind that cannot be read is named in `errors`.
   */
  async owned(uid: string, kinds: readonly string[], preferCache: boolean): Promise<{ objects: IdentifiedObject[]; errors: string[] }> {
    const objects: IdentifiedObject[] = []
    const errors: string[] = []
    for (const g of kinds) {
      let apiVersion: string
      let kind: string
      try {
        ;({ apiVersion, kind } = parseTrackedKind(g))
      } catch (e) {
        errors.push(`${g}: ${(e as Error).message}`)
        continue
      }
      const watch = preferCache ? this.deps.drift.get(g) : undefined
      if (watch && this.deps.drift.state(g).synced) {
        // The drift caches are indexed by this label (manager.ts): no scan of every object of the kind.
        for (const o of watch.byIndex(LABEL_INSTANCE_UID, uid)) objects.push({ ...(o as IdentifiedObject), apiVersion, kind })
        continue
      }
      try {
        objects.push(...(await this.deps.objects.list(apiVersion, kind, { labelSelector: `${LABEL_INSTANCE_UID}=${uid}` })))
      } catch (e) {
        errors.push(`${g}: ${errorMessage(e)}`)
      }
    }
    return { objects, errors }
  }
}
