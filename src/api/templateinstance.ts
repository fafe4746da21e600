// The TemplateInstance kind: a consumer's request to render a Template into its
// namespace, and the record of what was rendered.

import type { Condition, KubeObject, ObjectMeta, Timestamp } from './meta.ts'

export interface KeyRef {
  name: string
  key: string
  /** Defaults to the TemplateInstance namespace. */
  namespace?: string
}

export interface ObjectFieldRef {
  apiVersion: string
  kind: string
  /** Set: GET one object (scalar result). Absent: LIST (the result is always a list). */
  name?: string
  /** Empty with a LIST of a namespaced kind means every namespace. */
  namespace?: string
  /** JSONPath without braces, starting with "."; e.g. ".status.loadBalancer.ingress[0].ip". */
  jsonPath: string
}

/** Exactly one source. */
export type ValueFrom =
  | { secretKeyRef: KeyRef; configMapKeyRef?: never; objectFieldRef?: never }
  | { configMapKeyRef: KeyRef; secretKeyRef?: never; objectFieldRef?: never }
  | { objectFieldRef: ObjectFieldRef; secretKeyRef?: never; configMapKeyRef?: never }

export interface TemplateParameter {
  name: string
  /** Exactly one of value / valueFrom. */
  value?: string
  valueFrom?: ValueFrom
  /** Only with valueFrom: used when the source cannot be resolved. */
  defaultValue?: string
}

export interface TemplateRef {
  name: string
  namespace: string
}

export interface TemplateInstanceSpec {
  templateRef: TemplateRef
  parameters?: TemplateParameter[]
}

export const INSTANCE_PHASES = Object.freeze(['Ready', 'Failed'] as const)
export type InstancePhase = (typeof INSTANCE_PHASES)[number]

/** "" = applied; "Failed" = the last apply or delete of this object failed and is retried. */
export type ResourceState = '' | 'Failed'

/** One rendered object. Identity is (apiVersion, kind, name, namespace); `status` is not part of it. */
export interface ResourceReference {
  apiVersion: string
  kind: string
  name: string
  /** Empty for cluster-scoped objects. */
  namespace?: string
  /** The object's own metadata.generation at its last successful apply. */
  observedGeneration?: number
  status?: ResourceState
}

/**
 * A JSON value as recorded in status. Scalars are strings (the parameter
 * model); lists and maps appear when a source resolved to a composite.
 */
export type ParameterValue = string | number | boolean | null | ParameterValue[] | { [key: string]: ParameterValue }

export interface ResolvedParameter {
  name: string
  /** Present only when the definition sets exposeInStatus. */
  value?: ParameterValue
  /** Echo of the dynamic source, when there was one. */
  valueFrom?: ValueFrom
}

export interface ResolvedTemplateRef {
  name: string
  namespace: string
  /** metadata.generation of the Template that was rendered. */
  generation?: number
}

/** status.outputs[fieldName][key] = extracted value (composites as JSON text). */
export type OutputValues = Record<string, Record<string, string>>

export interface TemplateInstanceStatus {
  observedGeneration?: number
  phase?: InstancePhase
  conditions?: Condition[]
  renderedResources?: ResourceReference[]
  resolvedParameters?: ResolvedParameter[]
  resolvedTemplateRef?: ResolvedTemplateRef
  /** Every kind ever rendered, as "<apiVersion>/<kind>": "v1/ConfigMap", "apps/v1/Deployment". Only grows. */
  trackedKinds?: string[]
  /**
   * Written by earlier releases ("/v1/ConfigMap" for core kinds); read through
   * trackedKindsOf and removed once trackedKinds holds every entry.
   */
  trackedGVKs?: string[]
  /** Start of the freeze under sync mode `off`. */
  firstAppliedAt?: Timestamp
  outputs?: OutputValues
}

export interface TemplateInstance extends KubeObject {
  apiVersion?: string
  kind?: string
  metadata?: ObjectMeta
  spec: TemplateInstanceSpec
  status?: TemplateInstanceStatus
}
