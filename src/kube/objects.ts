// Generic object operations by apiVersion/kind: get, list, server-side apply
// (optionally dry-run), delete, and finalizer removal. Paths come from the
// RestMapper, bodies stay raw JSON.

import { refOf } from '../api/identity.ts'
import type { IdentifiedObject, ObjectRef } from '../api/meta.ts'
import type { KubeClient, Query } from './client.ts'
import { CONTENT_APPLY, CONTENT_JSON_PATCH } from './client.ts'
import { isNotFound, KubeApiError } from './errors.ts'
import { type RestMapper, type ResourceMapping, resourcePath } from './discovery.ts'
import { type JsonPatchOp, removeFinalizerOps } from './finalizers.ts'

export interface ApplyOptions {
  fieldManager: string
  force?: boolean
  dryRun?: boolean
}

export class ObjectClient {
  readonly client: KubeClient
  readonly mapper: RestMapper

  constructor(client: KubeClient, mapper: RestMapper) {
    this.client = client
    this.mapper = mapper
  }

  async mapping(apiVersion: string, kind: string): Promise<ResourceMapping> {
    return this.mapper.mapping(apiVersion, kind)
  }

  async path(ref: ObjectRef, withName = true): Promise<string> {
    const m = await this.mapper.mapping(ref.apiVersion, ref.kind)
    return resourcePath(m, ref.namespace, withName ? ref.name : undefined)
  }

  async get(ref: ObjectRef): Promise<IdentifiedObject | undefined> {
    return this.client.getOrUndefined<IdentifiedObject>(await this.path(ref))
  }

  /** Lists across all namespaces (or one) with a label selector; follows pagination. */
  async list(apiVersion: string, kind: string, opts: { namespace?: string; labelSelector?: string } = {}): Promise<IdentifiedObject[]> {
    const m = await this.mapper.mapping(apiVersion, kind)
    const path = resourcePath(m, opts.namespace)
    const out: IdentifiedObject[] = []
    let cont: string | undefined
    do {
      const page = await this.client.get<{ items?: IdentifiedObject[]; metadata?: { continue?: string } }>(path, {
        labelSelector: opts.labelSelector,
        limit: 500,
        continue: cont,
      })
      for (const it of page.items ?? []) out.push({ ...it, apiVersion, kind })
      cont = page.metadata?.continue || undefined
    } while (cont)
    return out
  }

  /** Server-side apply of an intent object; returns the resulting (or would-be) object. */
  async apply(obj: IdentifiedObject, opts: ApplyOptions): Promise<IdentifiedObject> {
    const path = await this.path(refOf(obj))
    const query: Query = { fieldManager: opts.fieldManager, force: opts.force ?? true }
    if (opts.dryRun) query.dryRun = 'All'
    return this.client.request<IdentifiedObject>('PATCH', path, { body: obj, contentType: CONTENT_APPLY, query })
  }

  /** A JSON patch (RFC 6902) of the object under `fieldManager`; the object as stored after it. */
  async jsonPatch(ref: ObjectRef, ops: readonly JsonPatchOp[], fieldManager: string): Promise<IdentifiedObject> {
    const path = await this.path(ref)
    return this.client.request<IdentifiedObject>('PATCH', path, { body: ops, contentType: CONTENT_JSON_PATCH, query: { fieldManager } })
  }

  /** Deletes an object; a missing object is not an error. Returns false when it was already gone. */
  async delete(ref: ObjectRef, opts: { uid?: string; propagationPolicy?: 'Background' | 'Foreground' | 'Orphan' } = {}): Promise<boolean> {
    const path = await this.path(ref)
    const body: Record<string, unknown> = {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      propagationPolicy: opts.propagationPolicy ?? 'Background',
    }
    // A UID precondition makes sure we delete the object we own, never a
    // same-named successor created by someone else.
    if (opts.uid) body.preconditions = { uid: opts.uid }
    try {
      await this.client.request('DELETE', path, { body })
      return true
    } catch (e) {
      if (isNotFound(e)) return false
      throw e
    }
  }

  /**
   * Removes one finalizer with a JSON patch guarded by a test on the exact
   * finalizers list, so a concurrent change is never overwritten.
   */
  async removeFinalizer(obj: IdentifiedObject, finalizer: string): Promise<void> {
    const path = await this.path(refOf(obj))
    let finalizers = obj.metadata.finalizers
    // The copy given may come from a cache that has not seen the last change of
    // the list (our own earlier removal, say): when the test fails, read it once.
    for (let attempt = 0; ; attempt++) {
      const patch = removeFinalizerOps(finalizers, finalizer)
      if (patch.length === 0) return
      try {
        await this.client.request('PATCH', path, { body: patch, contentType: CONTENT_JSON_PATCH })
        return
      } catch (e) {
        if (isNotFound(e)) return
        if (attempt > 0 || !(e instanceof KubeApiError && e.code === 422)) throw e
      }
      const fresh = await this.client.getOrUndefined<IdentifiedObject>(path)
      if (fresh === undefined || (obj.metadata.uid !== undefined && fresh.metadata.uid !== obj.metadata.uid)) return
      finalizers = fresh.metadata.finalizers
    }
  }
}
