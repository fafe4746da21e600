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
  /** Server bookkeeping; never compared, so its entries stay opaque. */
  managedFields?: unknown[]
}

/** Any object served by the API: identity plus whatever the kind carries. */
export interface KubeObject {
  apiVersion?: string
  kind?: string
  metadata?: ObjectMeta
  [field: string]: unknown
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
