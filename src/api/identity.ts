// Object identity and its string forms, the only ones in the code base. Every
// part is free of "/" except apiVersion's single separator, so the strings
// split back unambiguously, and each is a prefix of the next:
//
//   gvkString:      <group>/<version>/<kind>                core: /v1/ConfigMap
//   collectionKey:  <group>/<version>/<kind>/<namespace>    (empty: every namespace)
//   objectKey:      <group>/<version>/<kind>/<namespace>/<name>
//                   (namespace empty for cluster-scoped objects)
//
// namespacedKey (<namespace>/<name>, or <name> when cluster-scoped) names an
// object among those of one kind: the keys of caches and of the work queues.
// The "<apiVersion>/<kind>" strings of status.trackedKinds are API values,
// read and written by templateinstance-kinds.ts.

import type { ObjectRef } from './meta.ts'

export interface GroupVersionKind {
  readonly group: string
  readonly version: string
  readonly kind: string
}

export class IdentityError extends Error {
  override readonly name: string = 'IdentityError'
  readonly code = 'IDENTITY_INVALID'
}

/** Splits "group/version" or "version" (the core group); anything else is an IdentityError. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const parts = apiVersion.split('/')
  if (parts.length === 1 && parts[0] !== '') return { group: '', version: parts[0] ?? '' }
  if (parts.length === 2 && parts[0] !== '' && parts[1] !== '') return { group: parts[0] ?? '', version: parts[1] ?? '' }
  throw new IdentityError(`apiVersion ${JSON.stringify(apiVersion)} is not "version" or "group/version"`)
}

/** The group of an apiVersion, "" for the core group; lenient (a malformed apiVersion yields what precedes its first "/"). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/')
  return slash < 0 ? '' : apiVersion.slice(0, slash)
}

export function joinApiVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`
}

/** Throws unless `kind` is a kind name (not empty, no "/"). */
export function checkKind(kind: string): void {
  if (kind === '' || kind.includes('/')) throw new IdentityError(`kind ${JSON.stringify(kind)} is not a kind name`)
}

/** `apps/v1/Deployment`, core `/v1/ConfigMap` (also the older status.trackedGVKs spelling). */
export function gvkString(apiVersion: string, kind: string): string {
  const { group, version } = parseApiVersion(apiVersion)
  checkKind(kind)
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

function checkNamespace(namespace: string): void {
  if (namespace.includes('/')) throw new IdentityError(`namespace ${JSON.stringify(namespace)} is not a namespace name`)
}

/** The objects of one kind in one namespace, or in every namespace (or cluster-scoped) without one. */
export function collectionKey(apiVersion: string, kind: string, namespace?: string): string {
  const ns = namespace ?? ''
  checkNamespace(ns)
  return `${gvkString(apiVersion, kind)}/${ns}`
}

/** Inverse of collectionKey; an empty namespace gives none. */
export function parseCollectionKey(key: string): { apiVersion: string; kind: string; namespace?: string } {
  const parts = key.split('/')
  if (parts.length !== 4) throw new IdentityError(`${JSON.stringify(key)} is not a collection key`)
  const [group = '', version = '', kind = '', namespace = ''] = parts
  const { apiVersion } = parseGvkString(`${group}/${version}/${kind}`)
  return namespace === '' ? { apiVersion, kind } : { apiVersion, kind, namespace }
}

/**
 * The identity of an object: apiVersion, kind, namespace and name, as
 * status.renderedResources records it. An empty namespace and an absent one
 * are the same object.
 */
export function objectKey(ref: ObjectRef): string {
  if (ref.name === '' || ref.name.includes('/')) throw new IdentityError(`name ${JSON.stringify(ref.name)} is not an object name`)
  return `${collectionKey(ref.apiVersion, ref.kind, ref.namespace)}/${ref.name}`
}

/** Inverse of objectKey; a cluster-scoped key gives no namespace. */
export function parseObjectKey(key: string): ObjectRef {
  const slash = key.lastIndexOf('/')
  if (key.split('/').length !== 5) throw new IdentityError(`${JSON.stringify(key)} is not an object key`)
  const name = key.slice(slash + 1)
  if (name === '') throw new IdentityError(`${JSON.stringify(key)} has no name`)
  return { ...parseCollectionKey(key.slice(0, slash)), name }
}

/** "<namespace>/<name>", or "<name>" for a cluster-scoped object: an object among those of one kind. */
export function namespacedKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name
}

/** Inverse of namespacedKey (a namespace never holds "/"). */
export function parseNamespacedKey(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/')
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) }
}

/** The reference of an object with a known identity; an empty namespace is none. */
export function refOf(obj: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }): ObjectRef {
  return obj.metadata.namespace
    ? { apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name }
    : { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name }
}

/** "ConfigMap team-a/web", "ClusterRole reader": an object in messages and Events. */
export function describeObject(ref: { readonly kind: string; readonly namespace?: string; readonly name: string }): string {
  return `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`
}
