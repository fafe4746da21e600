// Object identity as the reconciler uses it: (apiVersion, kind, namespace,
// name) for rendered objects. The "<apiVersion>/<kind>" strings of
// status.trackedKinds come from src/api/templateinstance-kinds.ts.

import type { ObjectRef } from '../kube/objects.ts'

export function refOf(obj: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }): ObjectRef {
  const ref: ObjectRef = { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name }
  if (obj.metadata.namespace) ref.namespace = obj.metadata.namespace
  return ref
}

export function refKey(r: ObjectRef): string {
  return `${r.apiVersion}|${r.kind}|${r.namespace ?? ''}|${r.name}`
}
