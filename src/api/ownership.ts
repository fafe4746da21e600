// Ownership of rendered objects: the labels and annotation that tie an object
// to its TemplateInstance (see names.ts), stamped before every apply, and the
// rule by which the reconciler and `template-sync diff` judge whether a live
// object is theirs. The finalizer stamped with them lets cleanup run even when
// the instance goes first.

import type { IdentifiedObject, KubeObject } from './meta.ts'
import {
  ANNOTATION_INSTANCE_REF,
  FINALIZER_RESOURCE,
  LABEL_INSTANCE,
  LABEL_INSTANCE_NAME,
  LABEL_INSTANCE_NAMESPACE,
  LABEL_INSTANCE_UID,
  LABEL_SYNC_MODE,
  type SyncMode,
} from './names.ts'

export interface InstanceIdentity {
  readonly name: string
  readonly namespace: string
  readonly uid: string
}

/** The instance-ref annotation's value: "<namespace>/<name>". */
export function instanceRefOf(instance: Pick<InstanceIdentity, 'namespace' | 'name'>): string {
  return `${instance.namespace}/${instance.name}`
}

/**
 * A stamped deep copy of `obj`. The ownership keys are overwritten (a
 * Template cannot forge them), other labels, annotations and finalizers are
 * kept in order, and every finalizer appears once. The resource finalizer is
 * added, except under sync mode off: nothing guards the object after the
 * freeze, so a manual delete must complete at once instead of waiting for a
 * reconcile that a frozen instance may never run. Stamping a stamped object
 * again changes nothing; the input is never modified.
 */
export function stampOwnership<T extends IdentifiedObject>(obj: T, instance: InstanceIdentity, mode: SyncMode): T {
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
  meta.annotations = { ...meta.annotations, [ANNOTATION_INSTANCE_REF]: instanceRefOf(instance) }
  // metadata.finalizers is a set for server-side apply: a repeated entry would be rejected.
  const finalizers = [...new Set([...(meta.finalizers ?? []), FINALIZER_RESOURCE])].filter(
    (f) => mode !== 'off' || f !== FINALIZER_RESOURCE,
  )
  if (finalizers.length > 0) meta.finalizers = finalizers
  else delete meta.finalizers
  return out
}

export type OwnershipVerdict =
  | { readonly owned: true }
  /** ownerUid: the UID label of the instance that does own it, when there is one. */
  | { readonly owned: false; readonly ownerUid?: string }

/**
 * Whether a live object belongs to `instance`: its UID label says so, or,
 * without a UID label, it was annotated with the instance's ref to be adopted
 * (the documented adoption path). Owners are matched by UID, never by name, so
 * an object labelled for another instance is never adopted. An empty UID label
 * still counts as a label: such an object is nobody's to adopt.
 */
export function ownershipOf(obj: KubeObject, instance: InstanceIdentity): OwnershipVerdict {
  const labelUid = obj.metadata?.labels?.[LABEL_INSTANCE_UID]
  if (labelUid !== undefined)
    return labelUid === instance.uid ? { owned: true } : labelUid ? { owned: false, ownerUid: labelUid } : { owned: false }
  return obj.metadata?.annotations?.[ANNOTATION_INSTANCE_REF] === instanceRefOf(instance) ? { owned: true } : { owned: false }
}
