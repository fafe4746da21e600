// Minimal Kubernetes object shapes shared by every module. They are our own,
// kept to the fields template-sync reads, so that pure code never depends on
// the client library's generated classes (which carry Date objects and drop
// unknown fields when serialized).

/** RFC 3339 timestamp as it travels in JSON, e.g. "2026-01-02T03:04:05Z". */
export type Timestamp = string

export interface OwnerReference {
  apiVersion: string
  kind: string
  name: string
  uid: string
  controller?: boolean
  blockOwnerDeletion?: boolean
}

export interface ObjectMeta {
  name?: string
  generateName?: string
  namespace?: string
  uid?: string
  resourceVersion?: string
  generation?: number
  creationTimestamp?: Timestamp
  deletionTimestamp?: Timestamp
  deletionGracePeriodSeconds?: number
  labels?: Record<string, string>
  annotations?: Record<string, string>
  finalizers?: string[]
  ownerReferences?: OwnerReference[]
  /** Server bookkeeping; never compared. Read for who wrote an object last (a drift fight). */
  managedFields?: ManagedFieldsEntry[]
}

/** One entry of metadata.managedFields. */
export interface ManagedFieldsEntry {
  manager?: string
  operation?: string
  apiVersion?: string
  time?: Timestamp
  subresource?: string
  fieldsType?: string
  fieldsV1?: Record<string, unknown>
}

/**
 * Any object served by the API: identity plus whatever the kind carries. Every
 * part of template-sync uses this one type; what arrives over the wire (an
 * admission request, a watch event) may lack any field, so all are optional.
 */
export interface KubeObject {
  apiVersion?: string
  kind?: string
  metadata?: ObjectMeta
  [field: string]: unknown
}

/**
 * A KubeObject whose identity is known: apiVersion, kind and metadata.name are
 * set. What is rendered, applied, or read back by kind and name.
 */
export interface IdentifiedObject extends KubeObject {
  apiVersion: string
  kind: string
  metadata: ObjectMeta & { name: string }
}

/** The identity of an object in the cluster; namespace absent for cluster-scoped objects. */
export interface ObjectRef {
  readonly apiVersion: string
  readonly kind: string
  readonly namespace?: string
  readonly name: string
}

/**
 * Objects a parameter reads, watched so that a change re-renders the instance:
 * one object (name set), or a list of a kind in one namespace or in all
 * (no name; no namespace for every namespace).
 */
export interface SourceRef {
  readonly apiVersion: string
  readonly kind: string
  readonly namespace?: string
  readonly name?: string
}

export type ConditionStatus = 'True' | 'False' | 'Unknown'

/** The metav1.Condition shape. */
export interface Condition {
  type: string
  status: ConditionStatus
  /** CamelCase machine-readable reason; see conditions.ts. */
  reason: string
  /** Human-readable detail; may be empty. */
  message: string
  lastTransitionTime: Timestamp
  /** metadata.generation the condition was computed from. */
  observedGeneration?: number
}

export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'

export interface LabelSelectorRequirement {
  key: string
  operator: LabelSelectorOperator
  values?: string[]
}

/** metav1.LabelSelector: all terms are ANDed; an empty selector matches everything. */
export interface LabelSelector {
  matchLabels?: Record<string, string>
  matchExpressions?: LabelSelectorRequirement[]
}
