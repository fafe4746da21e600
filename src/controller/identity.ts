// Object identity as the reconciler uses it: (apiVersion, kind, namespace,
// name) for rendered objects. The "<group>/<version>/<kind>" strings of
// status.trackedGVKs come from src/render/identity.ts (gvkString).

import type { ObjectRef } from '../kube/objects.ts'

export function refOf(obj: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }): ObjectRef {
  const ref: ObjectRef = { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name }
  if (obj.metadata.namespace) ref.namespace = obj.metadata.namespace
  return ref
}

export function refKey(r: ObjectRef): string {
  return `${r.apiVersion}|${r.kind}|${r.namespace ?? ''}|${r.name}`
}
