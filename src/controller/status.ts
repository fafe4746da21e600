// Status writes: build the next status from the current one, and write it
// only when something other than bookkeeping changed, so that a converged
// instance causes no writes at all.

import { isDeepStrictEqual } from 'node:util'
import type { KubeClient } from '../kube/client.ts'
import { CONTENT_MERGE } from '../kube/client.ts'
import { isNotFound } from '../kube/errors.ts'
import { GROUP, VERSION } from '../api/names.ts'

/** The TemplateInstance collection of a namespace, or one TemplateInstance. */
export function instancePath(namespace: string, name?: string): string {
  const collection = `/apis/${GROUP}/${VERSION}/namespaces/${encodeURIComponent(namespace)}/templateinstances`
  return name === undefined ? collection : `${collection}/${encodeURIComponent(name)}`
}

/** One Template. */
export function templatePath(namespace: string, name: string): string {
  return `/apis/${GROUP}/${VERSION}/namespaces/${encodeURIComponent(namespace)}/templates/${encodeURIComponent(name)}`
}

export function instanceStatusPath(namespace: string, name: string): string {
  return `${instancePath(namespace, name)}/status`
}

export function templateStatusPath(namespace: string, name: string): string {
  return `${templatePath(namespace, name)}/status`
}

function dropUndefined(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v ?? {})) as unknown
}

export function statusEqual(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(dropUndefined(a), dropUndefined(b))
}

function isMapLike(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

/**
 * A JSON merge patch turning `current` into `next`: maps are merged key by
 * key, so a key that disappears anywhere (e.g. one output value) must be sent
 * as null; lists and scalars are replaced whole.
 */
export function mergePatchFor(current: unknown, next: unknown): unknown {
  if (!isMapLike(next) || !isMapLike(current)) return next
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(next)) out[k] = Object.hasOwn(current, k) ? mergePatchFor(current[k], v) : v
  for (const k of Object.keys(current)) if (!Object.hasOwn(next, k)) out[k] = null
  return out
}

/**
 * Writes `next` as the whole status with a merge patch (keys that disappear
 * are sent as null). Returns the status as the API server stored it (after
 * pruning by the CRD schema), or undefined when nothing changed (no request
 * made) or the object is gone.
 */
export async function writeStatus(
  client: KubeClient,
  path: string,
  current: Record<string, unknown> | undefined,
  next: Record<string, unknown>,
): Promise<Record<string, unknown> | undefined> {
  return (await writeStatusVersioned(client, path, current, next))?.status
}

/** writeStatus, with the resourceVersion the write gave the object. */
export async function writeStatusVersioned(
  client: KubeClient,
  path: string,
  current: Record<string, unknown> | undefined,
  next: Record<string, unknown>,
): Promise<{ status: Record<string, unknown>; resourceVersion: string } | undefined> {
  if (statusEqual(current, next)) return undefined
  const body = mergePatchFor(dropUndefined(current ?? {}), dropUndefined(next)) as Record<string, unknown>
  // Unconditional (no resourceVersion precondition): the status has one
  // writer, one pass at a time, and `current` may lag behind our own previous
  // write only because the cache has not delivered it yet; a precondition
  // would turn exactly that case into a conflict and a retry.
  const patch: Record<string, unknown> = { status: body }
  try {
    const stored = await client.request<{ metadata?: { resourceVersion?: string }; status?: Record<string, unknown> }>('PATCH', path, {
      body: patch,
      contentType: CONTENT_MERGE,
    })
    return { status: stored?.status ?? {}, resourceVersion: stored?.metadata?.resourceVersion ?? '' }
  } catch (e) {
    if (isNotFound(e)) return undefined
    throw e
  }
}
