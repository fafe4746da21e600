// What the webhook keeps of each cached object: only the fields the admission
// judge reads. Templates can carry large Go-template bodies and instances
// large parameter lists and statuses, so the caches hold a copy cut down to a
// few strings per object. The copies are plain data; the Reflector freezes them.

import type { KubeObject, ObjectMeta } from '../api/meta.ts'
import { ANNOTATION_INSTANCE_REF, ANNOTATION_TEMPLATE_REF, LABEL_SYNC_MODE, PROTECTED_LABELS } from '../api/names.ts'
import type { Template } from '../api/template.ts'
import type { TemplateInstance } from '../api/templateinstance.ts'

/** A Namespace as the webhook sees it: identity, deletion and phase. */
export interface SlimNamespace extends KubeObject {
  metadata: ObjectMeta
  status?: { phase?: string }
}

/** Whatever the Reflector hands over; nothing in it is trusted to have the right type. */
type Raw = { metadata?: unknown; spec?: unknown; status?: unknown }

function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined
}

/** Identity and lifecycle fields; everything else in metadata is dropped. */
function slimMeta(raw: unknown, withGeneration: boolean): ObjectMeta {
  const m = record(raw) ?? {}
  const out: ObjectMeta = {}
  const name = str(m.name)
  const namespace = str(m.namespace)
  const uid = str(m.uid)
  // resourceVersion lets the Reflector tell an update from a no-op after a relist.
  const resourceVersion = str(m.resourceVersion)
  const deletionTimestamp = str(m.deletionTimestamp)
  if (name !== undefined) out.name = name
  if (namespace !== undefined) out.namespace = namespace
  if (uid !== undefined) out.uid = uid
  if (resourceVersion !== undefined) out.resourceVersion = resourceVersion
  if (deletionTimestamp !== undefined) out.deletionTimestamp = deletionTimestamp
  if (withGeneration && typeof m.generation === 'number') out.generation = m.generation
  return out
}

/** A picked subset of a string map; undefined when none of the keys is present. */
function pick(raw: unknown, keys: readonly string[]): Record<string, string> | undefined {
  const m = record(raw)
  if (m === undefined) return undefined
  let out: Record<string, string> | undefined
  for (const k of keys) {
    if (!Object.hasOwn(m, k)) continue
    const v = str(m[k])
    if (v === undefined) continue
    out ??= {}
    out[k] = v
  }
  return out
}

/** Namespace: name, uid, deletionTimestamp and status.phase. */
export function slimNamespace(raw: Raw): SlimNamespace {
  const out: SlimNamespace = { metadata: slimMeta(raw.metadata, false) }
  const phase = str(record(raw.status)?.phase)
  if (phase !== undefined) out.status = { phase }
  return out
}

/** TemplateInstance: identity, deletion and spec.templateRef (parameters and status are not needed to judge). */
export function slimInstance(raw: Raw): TemplateInstance {
  const ref = record(record(raw.spec)?.templateRef)
  const templateRef = { name: str(ref?.name) ?? '', namespace: str(ref?.namespace) ?? '' }
  return { metadata: slimMeta(raw.metadata, false), spec: { templateRef } }
}

/**
 * Template: identity, generation (the ignore-compilation cache key) and
 * spec.sync. ignoreFields is copied as found, even when it is not a list of
 * strings, so that compiling it reports the problem instead of the cache hiding it.
 */
export function slimTemplate(raw: Raw): Template {
  const out: Template = { metadata: slimMeta(raw.metadata, true), spec: {} }
  const sync = record(record(raw.spec)?.sync)
  if (sync !== undefined) {
    const s: Record<string, unknown> = {}
    if (sync.mode !== undefined) s.mode = sync.mode
    if (sync.ignoreFields !== undefined) s.ignoreFields = Array.isArray(sync.ignoreFields) ? [...sync.ignoreFields] : sync.ignoreFields
    out.spec.sync = s as Template['spec']['sync']
  }
  return out
}

const OWNERSHIP_LABELS: readonly string[] = Object.freeze([...PROTECTED_LABELS, LABEL_SYNC_MODE])
const OWNERSHIP_ANNOTATIONS: readonly string[] = Object.freeze([ANNOTATION_INSTANCE_REF, ANNOTATION_TEMPLATE_REF])

/**
 * The target of a /scale request (Deployment, StatefulSet, ...): a Scale object
 * carries no labels or annotations, so ownership is read from here. Only the
 * ownership keys are kept.
 */
export function slimScaleTarget(raw: Raw): KubeObject {
  const metadata = slimMeta(raw.metadata, false)
  const m = record(raw.metadata)
  const labels = pick(m?.labels, OWNERSHIP_LABELS)
  const annotations = pick(m?.annotations, OWNERSHIP_ANNOTATIONS)
  if (labels !== undefined) metadata.labels = labels
  if (annotations !== undefined) metadata.annotations = annotations
  return { metadata }
}

/**
 * A rendered Pod, for pods/eviction and pods/binding: an Eviction or a Binding
 * carries none of the Pod's metadata. The ownership labels are kept, and every
 * annotation, because a binding is judged on the annotations it would change.
 */
export function slimPod(raw: Raw): KubeObject {
  const metadata = slimMeta(raw.metadata, false)
  const m = record(raw.metadata)
  const labels = pick(m?.labels, OWNERSHIP_LABELS)
  if (labels !== undefined) metadata.labels = labels
  const annotations = record(m?.annotations)
  if (annotations !== undefined) {
    const kept: Record<string, string> = {}
    for (const k of Object.keys(annotations)) {
      const v = str(annotations[k])
      // defineProperty keeps an annotation named "__proto__" as data.
      if (v !== undefined) Object.defineProperty(kept, k, { value: v, enumerable: true, writable: true, configurable: true })
    }
    metadata.annotations = kept
  }
  return { metadata }
}
