// Reading ownership from a stored object. The instance-ref annotation names
// the owner; the instance-uid label proves it is that owner and not a later
// TemplateInstance that reuses the name.

import type { KubeObject } from '../api/meta.ts'
import { ANNOTATION_INSTANCE_REF, LABEL_INSTANCE_UID } from '../api/names.ts'

export interface InstanceRef {
  readonly namespace: string
  readonly name: string
}

export type OwnerRefReading =
  | { readonly kind: 'absent' }
  | { readonly kind: 'malformed' }
  | { readonly kind: 'ref'; readonly ref: InstanceRef }

const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/
const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/

/** "<namespace>/<name>" with valid DNS names on both sides, or undefined. */
export function parseInstanceRef(value: string): InstanceRef | undefined {
  const slash = value.indexOf('/')
  if (slash < 0 || slash !== value.lastIndexOf('/')) return undefined
  const namespace = value.slice(0, slash)
  const name = value.slice(slash + 1)
  if (namespace.length > 63 || !NAMESPACE.test(namespace)) return undefined
  if (name.length > 253 || !NAME.test(name)) return undefined
  return { namespace, name }
}

export function formatInstanceRef(ref: InstanceRef): string {
  return `${ref.namespace}/${ref.name}`
}

/** Own string entry of a label/annotation map; anything else counts as absent. */
function entry(map: unknown, key: string): string | undefined {
  if (typeof map !== 'object' || map === null || !Object.hasOwn(map, key)) return undefined
  const value: unknown = (map as Record<string, unknown>)[key]
  return typeof value === 'string' ? value : undefined
}

export function readInstanceRef(obj: KubeObject | null | undefined): OwnerRefReading {
  const raw = entry(obj?.metadata?.annotations, ANNOTATION_INSTANCE_REF)
  if (raw === undefined) return { kind: 'absent' }
  const ref = parseInstanceRef(raw)
  return ref === undefined ? { kind: 'malformed' } : { kind: 'ref', ref }
}

export function readInstanceUid(obj: KubeObject | null | undefined): string | undefined {
  const uid = entry(obj?.metadata?.labels, LABEL_INSTANCE_UID)
  return uid === '' ? undefined : uid
}
