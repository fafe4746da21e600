// Ownership of rendered objects: the labels and annotation that tie an object
// to its TemplateInstance (see names.ts), how they are stamped before every
// apply, how the webhook reads them from a stored object, and the rule by which
// the reconciler and `template-sync diff` judge whether a live object is
// theirs. The instance-ref annotation names the owner; the instance-uid label
// proves it is that owner and not a later TemplateInstance that reuses the
// name. The finalizer stamped with them lets cleanup run even when the
// instance goes first.

import type { IdentifiedObject, KubeObject } from './meta.ts'
import {
  ANNOTATION_INSTANCE_REF,
  ANNOTATION_RENDERED_VERSION,
  ANNOTATION_TEMPLATE_REF,
  FINALIZER_RESOURCE,
  LABEL_INSTANCE,
  LABEL_INSTANCE_NAME,
  LABEL_INSTANCE_NAMESPACE,
  LABEL_INSTANCE_UID,
  LABEL_SYNC_MODE,
  type SyncMode,
} from './names.ts'

export interface InstanceRef {
  readonly namespace: string
  readonly name: string
}

export interface InstanceIdentity extends InstanceRef {
  readonly uid: string
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

/** The instance-ref annotation's value: "<namespace>/<name>". */
export function formatInstanceRef(ref: InstanceRef): string {
  return `${ref.namespace}/${ref.name}`
}

/** Own string entry of a label/annotation map; anything else counts as absent. */
function entry(map: unknown, key: string): string | undefined {
  if (typeof map !== 'object' || map === null || !Object.hasOwn(map, key)) return undefined
  const value: unknown = (map as Record<string, unknown>)[key]
  return typeof value === 'string' ? value : undefined
}

/** The owner the instance-ref annotation names, as the webhook reads it from a stored object. */
export function readInstanceRef(obj: KubeObject | null | undefined): OwnerRefReading {
  const raw = entry(obj?.metadata?.annotations, ANNOTATION_INSTANCE_REF)
  if (raw === undefined) return { kind: 'absent' }
  const ref = parseInstanceRef(raw)
  return ref === undefined ? { kind: 'malformed' } : { kind: 'ref', ref }
}

/** The Template that last applied the object, from its template-ref annotation; undefined when absent or malformed. */
export function readTemplateRef(obj: KubeObject | null | undefined): InstanceRef | undefined {
  const raw = entry(obj?.metadata?.annotations, ANNOTATION_TEMPLATE_REF)
  return raw === undefined ? undefined : parseInstanceRef(raw)
}

/** The apiVersion the object was rendered in, from its rendered-api-version annotation. */
export function readRenderedVersion(obj: KubeObject | null | undefined): string | undefined {
  const v = entry(obj?.metadata?.annotations, ANNOTATION_RENDERED_VERSION)
  return v === '' ? undefined : v
}

/** The instance-uid label; an empty one is none (the webhook then enforces nothing). */
export function readInstanceUid(obj: KubeObject | null | undefined): string | undefined {
  const uid = entry(obj?.metadata?.labels, LABEL_INSTANCE_UID)
  return uid === '' ? undefined : uid
}

/**
 * A stamped deep copy of `obj`. The ownership keys are overwritten (a
 * Template cannot forge them), other labels, annotations and finalizers are
 * kept in order, and every finalizer appears once. The resource finalizer is
 * added, except under sync mode off: nothing guards the object after the
 * freeze, so a manual delete must complete at once instead of waiting for a
 * reconcile that a frozen instance may never run. Stamping a stamped object
 * again changes nothing; the input is never modified. With `template`, the
 * object also records which Template rendered it and in which apiVersion:
 * the webhook judges it by them.
 */
export function stampOwnership<T extends IdentifiedObject>(obj: T, instance: InstanceIdentity, mode: SyncMode, template?: InstanceRef): T {
  const out = structuredClone(obj)
  const meta = out.metadata
  meta.labels = {
    ...meta.labels,
    [LABEL_INSTANCE]: instance.name,
    [LABEL_INSTANCE_UID]: instance.uid,
    [LABEL_INSTANCE_NAME]: instance.name,
    [LABEL_INSTANCE_NAMESPACE]: instance.namespace,
    [LABEL_SYNC_MODE]: mode,
  }
  meta.annotations = { ...meta.annotations, [ANNOTATION_INSTANCE_REF]: formatInstanceRef(instance) }
  if (template !== undefined) {
    meta.annotations[ANNOTATION_TEMPLATE_REF] = formatInstanceRef(template)
    meta.annotations[ANNOTATION_RENDERED_VERSION] = out.apiVersion
  }
  // metadata.finalizers is a set for server-side apply: a repeated entry would be rejected.
  const finalizers = [...new Set([...(meta.finalizers ?? []), FINALIZER_RESOURCE])].filter(
    (f) => mode !== 'off' || f !== FINALIZER_RESOURCE,
  )
  if (finalizers.length > 0) meta.finalizers = finalizers
  else delete meta.finalizers
  return out
}

/** How an object that is not yet stamped with an instance's UID becomes its own with the next apply. */
export type Adoption =
  /** It carries the instance-ref annotation and no UID label (the documented adoption path). */
  | { readonly kind: 'annotation' }
  /**
   * An earlier instance of the same namespace and name rendered it from the
   * same Template: that instance is gone (a namespace and name hold one
   * object at a time), and the new one takes over what it left.
   */
  | { readonly kind: 'earlier'; readonly uid: string }

/** Who holds an object that is not an instance's to take. */
export type Holder =
  /** No instance: it carries no UID label (or an empty one), and no adoption annotation for this instance. */
  | { readonly kind: 'none' }
  /** Another instance, named by the object's labels when they do. */
  | { readonly kind: 'instance'; readonly uid: string; readonly ref?: InstanceRef }
  /**
   * An earlier instance of the same namespace and name, gone, that rendered
   * it from another Template (or from one the object does not record).
   */
  | { readonly kind: 'earlier'; readonly uid: string; readonly template?: InstanceRef }

export type OwnershipVerdict = { readonly owned: true; readonly adopting?: Adoption } | { readonly owned: false; readonly holder: Holder }

/**
 * Whether a live object belongs to `instance`: its UID label says so; without
 * a UID label, it was annotated with the instance's ref to be adopted; or an
 * earlier instance of the same name left it, rendered from `template` (the
 * Template the instance renders from now). Owners are matched by UID, never by
 * name, so an object of another living instance is never adopted. An empty UID
 * label still counts as a label: such an object is nobody's to adopt.
 */
export function ownershipOf(obj: KubeObject, instance: InstanceIdentity, template?: InstanceRef): OwnershipVerdict {
  const labels = obj.metadata?.labels
  const labelUid = entry(labels, LABEL_INSTANCE_UID)
  if (labelUid === instance.uid) return { owned: true }
  if (labelUid === undefined) {
    const annotated = entry(obj.metadata?.annotations, ANNOTATION_INSTANCE_REF) === formatInstanceRef(instance)
    return annotated ? { owned: true, adopting: { kind: 'annotation' } } : { owned: false, holder: { kind: 'none' } }
  }
  if (labelUid === '') return { owned: false, holder: { kind: 'none' } }
  const namespace = entry(labels, LABEL_INSTANCE_NAMESPACE)
  const name = entry(labels, LABEL_INSTANCE_NAME)
  if (namespace !== instance.namespace || name !== instance.name) {
    const ref = namespace && name ? { namespace, name } : undefined
    return { owned: false, holder: { kind: 'instance', uid: labelUid, ...(ref ? { ref } : {}) } }
  }
  const stamped = readTemplateRef(obj)
  if (template !== undefined && stamped !== undefined && formatInstanceRef(stamped) === formatInstanceRef(template)) {
    return { owned: true, adopting: { kind: 'earlier', uid: labelUid } }
  }
  return { owned: false, holder: { kind: 'earlier', uid: labelUid, ...(stamped ? { template: stamped } : {}) } }
}
