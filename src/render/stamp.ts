// Ownership metadata on a rendered object before it is applied: the labels
// and annotation that tie it to its TemplateInstance (see src/api/names.ts)
// and the finalizer that lets cleanup run even when the instance goes first.

import type { SyncMode } from '../api/names.ts'
import {
  ANNOTATION_INSTANCE_REF,
  FINALIZER_RESOURCE,
  LABEL_INSTANCE,
  LABEL_INSTANCE_NAME,
  LABEL_INSTANCE_NAMESPACE,
  LABEL_INSTANCE_UID,
  LABEL_SYNC_MODE,
} from '../api/names.ts'
import type { Manifest } from './types.ts'

export interface InstanceIdentity {
  readonly name: string
  readonly namespace: string
  readonly uid: string
}

/**
 * A stamped deep copy of `obj`. The ownership keys are overwritten (a
 * Template cannot forge them), other labels, annotations and finalizers are
 * kept in order, and every finalizer, the resource finalizer included,
 * appears once. Stamping a stamped object
 * again changes nothing; the input is never modified.
 */
export function stampOwnership<T extends Manifest>(obj: T, instance: InstanceIdentity, mode: SyncMode): T {
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
  meta.annotations = { ...meta.annotations, [ANNOTATION_INSTANCE_REF]: `${instance.namespace}/${instance.name}` }
  // metadata.finalizers is a set for server-side apply: a repeated entry would be rejected.
  meta.finalizers = [...new Set([...(meta.finalizers ?? []), FINALIZER_RESOURCE])]
  return out
}
