// Object identity as the reconciler uses it: (apiVersion, kind, namespace,
// name) for rendered objects, and "<group>/<version>/<kind>" strings for the
// kinds recorded in status.trackedGVKs (core group empty: "/v1/ConfigMap").

import type { KubeObject, ObjectRef } from '../kube/objects.ts'

export function refOf(obj: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }): ObjectRef {
  const ref: ObjectRef = { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name }
  if (obj.metadata.namespace) ref.namespace = obj.metadata.namespace
  return ref
}

export function refKey(r: ObjectRef): string {
  return `${r.apiVersion}|${r.kind}|${r.namespace ?? ''}|${r.name}`
}

export function gvkOf(obj: Pick<KubeObject, 'apiVersion' | 'kind'>): string {
  const i = obj.apiVersion.indexOf('/')
  const group = i < 0 ? '' : obj.apiVersion.slice(0, i)
  const version = i < 0 ? obj.apiVersion : obj.apiVersion.slice(i + 1)
  return `${group}/${version}/${obj.kind}`
}

export function parseGvk(gvk: string): { apiVersion: string; kind: string } {
  const parts = gvk.split('/')
  if (parts.length !== 3 || !parts[1] || !parts[2]) throw new Error(`invalid GVK "${gvk}": expected <group>/<version>/<kind>`)
  const [group, version, kind] = parts as [string, string, string]
  return { apiVersion: group ? `${group}/${version}` : version, kind }
}
