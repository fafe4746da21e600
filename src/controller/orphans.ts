// Objects left behind by a TemplateInstance that disappeared without our
// cleanup (its finalizer removed by hand, or deleted while no reconciler ran).
// They still carry our resource finalizer and no instance will ever release
// it, so deleting them would hang in Terminating. The reconciler releases that
// finalizer from every such object it sees, and otherwise leaves the object
// alone: it is neither deleted nor changed (docs/orphans.md).
//
// Seeing them needs a drift watch on their kind. When an instance goes away,
// and once at start-up for every kind some instance tracks, the kinds are held
// under ORPHAN_OWNER until their watch has synced and shows no such object.

import type { Logger } from 'pino'
import { FINALIZER_RESOURCE, LABEL_INSTANCE_NAME, LABEL_INSTANCE_NAMESPACE, LABEL_INSTANCE_UID } from '../api/names.ts'
import { objectKey, parseObjectKey } from '../api/identity.ts'
import { parseTrackedKind, trackedKind } from '../api/templateinstance-kinds.ts'
import type { IdentifiedObject, KubeObject } from '../api/meta.ts'
import type { ObjectClient } from '../kube/objects.ts'
import type { EventSink } from './instance.ts'
import type { WorkQueue } from './queue.ts'
import type { WatchRegistry } from './registry.ts'

/** Holder of drift watches kept for orphans; without a "/" it can never be an instance key. */
export const ORPHAN_OWNER = 'orphaned-objects'

export interface OrphanOwner {
  uid: string
  namespace: string | undefined
  name: string | undefined
}

/** The owner of an object that still carries our finalizer while its owner is unknown; undefined for every other object. */
export function orphanOwner(obj: KubeObject, known: (uid: string) => boolean): OrphanOwner | undefined {
  const labels = obj.metadata?.labels ?? {}
  const uid = labels[LABEL_INSTANCE_UID]
  if (!uid || known(uid) || !(obj.metadata?.finalizers ?? []).includes(FINALIZER_RESOURCE)) return undefined
  return { uid, namespace: labels[LABEL_INSTANCE_NAMESPACE], name: labels[LABEL_INSTANCE_NAME] }
}

/** Work-queue key of one object of a tracked kind: its objectKey. */
export function orphanKey(kind: string, namespace: string | undefined, name: string): string {
  const { apiVersion, kind: k } = parseTrackedKind(kind)
  return objectKey({ apiVersion, kind: k, name, ...(namespace ? { namespace } : {}) })
}

export function parseOrphanKey(key: string): { kind: string; namespace: string | undefined; name: string } {
  const ref = parseObjectKey(key)
  return { kind: trackedKind(ref.apiVersion, ref.kind), namespace: ref.namespace, name: ref.name }
}

export interface OrphanReleaserDeps {
  drift: WatchRegistry
  objects: ObjectClient
  queue: WorkQueue<string>
  /** True when a TemplateInstance with this UID is in the cache. */
  knownUid(uid: string): boolean
  /** The UID of the TemplateInstance namespace/name as the API server has it now (undefined: none). */
  liveInstanceUid(namespace: string, name: string): Promise<string | undefined>
  events: EventSink
  log: Logger
}

export class OrphanReleaser {
  private readonly deps: OrphanReleaserDeps
  private readonly held = new Set<string>()

  constructor(deps: OrphanReleaserDeps) {
    this.deps = deps
  }

  /** Keeps the drift watches of these kinds running until they show no orphan. */
  hold(kinds: Iterable<string>): void {
    const added = [...kinds].filter((k) => !this.held.has(k))
    if (added.length === 0) return
    for (const k of added) this.held.add(k)
    this.deps.drift.setOwnerKeys(ORPHAN_OWNER, this.held)
    // A watch that was running already has nothing more to deliver: look now.
    for (const k of added) this.settle(k)
  }

  heldKinds(): string[] {
    return [...this.held]
  }

  /** Called for every object event of a drift watch. */
  observe(kind: string, obj: KubeObject): void {
    const name = obj.metadata?.name
    if (name && orphanOwner(obj, (uid) => this.deps.knownUid(uid))) this.deps.queue.add(orphanKey(kind, obj.metadata?.namespace, name))
    this.settle(kind)
  }

  /** Lets go of a held kind once its watch has synced and holds no orphan any more. */
  settle(kind: string): void {
    if (!this.held.has(kind)) return
    const watch = this.deps.drift.get(kind)
    const state = this.deps.drift.state(kind)
    if (watch) {
      if (!state.synced) return
      const left = watch.list().filter((o) => orphanOwner(o, (uid) => this.deps.knownUid(uid)))
      // Queued again: a watch that was running already delivered these before their owner went.
      for (const o of left) if (o.metadata?.name) this.deps.queue.add(orphanKey(kind, o.metadata.namespace, o.metadata.name))
      if (left.length > 0) return
    } else if (state.error === undefined) {
      return
    }
    // Synced without orphans, or a kind whose watch cannot even be created (no longer served): nothing to see.
    this.held.delete(kind)
    this.deps.drift.setOwnerKeys(ORPHAN_OWNER, this.held)
  }

  /** The queue handler: removes our finalizer from one orphan after checking again that its owner is gone. */
  async release(key: string): Promise<void> {
    const { kind: tracked, namespace, name } = parseOrphanKey(key)
    const { apiVersion, kind } = parseTrackedKind(tracked)
    const cached = this.deps.drift.get(tracked)?.get(namespace, name)
    const obj = cached
      ? ({ ...(cached as IdentifiedObject), apiVersion, kind } as IdentifiedObject)
      : await this.deps.objects.get({ apiVersion, kind, name, ...(namespace ? { namespace } : {}) })
    if (!obj) return
    const owner = orphanOwner(obj, (uid) => this.deps.knownUid(uid))
    if (!owner) return
    // The cache says the owner is gone; ask the API server before letting go.
    if (owner.namespace && owner.name && (await this.deps.liveInstanceUid(owner.namespace, owner.name)) === owner.uid) return
    await this.deps.objects.removeFinalizer({ ...obj, apiVersion, kind }, FINALIZER_RESOURCE)
    const ownerRef = owner.namespace && owner.name ? `${owner.namespace}/${owner.name} ` : ''
    const message = `the owning TemplateInstance ${ownerRef}(uid ${owner.uid}) no longer exists; released the finalizer ${FINALIZER_RESOURCE} and left the object as it is`
    this.deps.events.normal(
      { apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}), ...(obj.metadata.uid ? { uid: obj.metadata.uid } : {}) } },
      'OrphanReleased',
      message,
    )
    this.deps.log.info(
      { object: `${tracked} ${namespace ? `${namespace}/` : ''}${name}`, ownerUid: owner.uid },
      'released an orphaned object',
    )
    this.settle(tracked)
  }
}
