// Values and results shared by the render pipeline's files.

import type { KubeObject, ObjectMeta } from '../api/meta.ts'
import type { ParameterValue } from '../api/templateinstance.ts'

/**
 * A resolved parameter. Scalars are strings whatever their declared type;
 * lists and maps come from `array`/`object` parameters (JSON text decoded) or
 * from an objectFieldRef that selected a composite, and keep JSON's own
 * numbers, booleans and nulls inside.
 */
export type ParamValue = string | ParameterValue[] | { [key: string]: ParameterValue }

/** A rendered manifest: a mapping with apiVersion, kind and metadata.name. */
export interface Manifest extends KubeObject {
  apiVersion: string
  kind: string
  metadata: ObjectMeta & { name: string }
}

/** Identity of an object in the cluster; namespace absent for cluster-scoped objects. */
export interface ObjectRef {
  readonly apiVersion: string
  readonly kind: string
  readonly namespace?: string
  readonly name: string
}
