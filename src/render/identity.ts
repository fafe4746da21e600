// String identities for rendered objects. Every part is free of "/" except
// apiVersion's single separator, so the strings split back unambiguously:
//
//   gvkString:    <group>/<version>/<kind>          core: /v1/ConfigMap
//   resourceKey:  <group>/<version>/<kind>/<namespace>/<name>
//                 (namespace empty for cluster-scoped objects)

import type { ObjectRef } from './types.ts'

export interface GroupVersionKind {
  readonly group: string
  readonly version: string
  readonly kind: string
}

export class IdentityError extends Error {
  override readonly name = 'IdentityError'
  readonly code = 'IDENTITY_INVALID'
}

/** Splits "group/version" or "version" (the core group). */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const parts = apiVersion.split('/')
  if (parts.length === 1 && parts[0] !== '') return { group: '', version: parts[0] ?? '' }
  if (parts.length === 2 && parts[0] !== '' && parts[1] !== '') return { group: parts[0] ?? '', version: parts[1] ?? '' }
  throw new IdentityError(`apiVersion ${JSON.stringify(apiVersion)} is not "version" or "group/version"`)
}

export function joinApiVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`
}

/** The status.trackedGVKs form: `apps/v1/Deployment`, core `/v1/ConfigMap`. */
export function gvkString(apiVersion: string, kind: string): string {
  const { group, version } = splitApiVersion(apiVersion)
  if (kind === '' || kind.includes('/')) throw new IdentityError(`kind ${JSON.stringify(kind)} is not a kind name`)
  return `${group}/${version}/${kind}`
}

/** Inverse of gvkString; also gives the apiVersion back. */
export function parseGvkString(s: string): GroupVersionKind & { readonly apiVersion: string } {
  const parts = s.split('/')
  const [group = '', version = '', kind = ''] = parts
  if (parts.length !== 3 || version === '' || kind === '') {
    throw new IdentityError(`${JSON.stringify(s)} is not "<group>/<version>/<kind>"`)
  }
  return { group, version, kind, apiVersion: joinApiVersion(group, version) }
}

/**
 * The identity of an object: apiVersion, kind, namespace and name, as
 * status.renderedResources records it. An empty namespace and an absent one
 * are the same object.
 */
export function resourceKey(ref: ObjectRef): string {
  if (ref.name === '' || ref.name.includes('/')) throw new IdentityError(`name ${JSON.stringify(ref.name)} is not an object name`)
  const ns = ref.namespace ?? ''
  if (ns.includes('/')) throw new IdentityError(`namespace ${JSON.stringify(ns)} is not a namespace name`)
  return `${gvkString(ref.apiVersion, ref.kind)}/${ns}/${ref.name}`
}

/** Inverse of resourceKey; a cluster-scoped key gives no namespace. */
export function parseResourceKey(key: string): ObjectRef {
  const parts = key.split('/')
  if (parts.length !== 5) throw new IdentityError(`${JSON.stringify(key)} is not a resource key`)
  const [group = '', version = '', kind = '', namespace = '', name = ''] = parts
  const { apiVersion } = parseGvkString(`${group}/${version}/${kind}`)
  if (name === '') throw new IdentityError(`${JSON.stringify(key)} has no name`)
  return namespace === '' ? { apiVersion, kind, name } : { apiVersion, kind, namespace, name }
}
