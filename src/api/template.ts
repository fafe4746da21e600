// The Template kind (templates.v2.stakater.com/v2alpha1): what a platform team
// publishes. The CRD schema in template-schema.ts mirrors these types; a test
// keeps the two in step.

import type { Condition, KubeObject, LabelSelector, ObjectMeta } from './meta.ts'
import { SYNC_MODES, type SyncMode } from './names.ts'

export const PARAMETER_TYPES = Object.freeze(['string', 'number', 'bool', 'array', 'object'] as const)
/**
 * Declared type of a parameter. Values travel as strings; `array` and
 * `object` values are JSON text (e.g. `["a","b"]`) so one string field can
 * carry every type.
 */
export type ParameterType = (typeof PARAMETER_TYPES)[number]

export const HELM_VERSIONS = Object.freeze(['v3', 'v4'] as const)
export type HelmVersion = (typeof HELM_VERSIONS)[number]
/**
 * spec.helm.version when absent: Helm 3, as the current Template Operator
 * documentation says (docs/helm-templates.md). The CRD defaults the field, so
 * stored Templates always name it; this covers Templates read from files.
 */
export const DEFAULT_HELM_VERSION: HelmVersion = 'v3'

export interface HelmSecretRef {
  /** Secret in the Template's own namespace. */
  name: string
}

export interface HelmRepository {
  /** http(s):// repository serving index.yaml, or an oci:// registry. */
  url: string
  /** Chart name. */
  name: string
  /** Exact SemVer 2 version, optional leading "v"; no ranges. */
  version: string
  auth?: { secretRef: HelmSecretRef }
}

/** Render a Helm chart as `helm template --include-crds` does (docs/helm-templates.md). */
export interface HelmSpec {
  chart: { repository: HelmRepository }
  /** Defaults to the TemplateInstance name; at most 53 characters. */
  releaseName?: string
  /** Which Helm major's rendering rules apply; DEFAULT_HELM_VERSION when absent. */
  version?: HelmVersion
  /**
   * Go template over the gotemplate context (.parameters, .instance) that
   * renders one YAML mapping, merged over the chart's values like `helm -f`.
   */
  valuesTemplate?: string
}

export interface TemplateParameterDefinition {
  name: string
  /** Literal default, always a string (JSON text for array/object). */
  value?: string
  type?: ParameterType
  /** The instance must supply a value; the default above is then ignored. */
  required?: boolean
  /** The instance must not supply a value. */
  disableOverride?: boolean
  /** Record the resolved value in TemplateInstance.status.resolvedParameters. */
  exposeInStatus?: boolean
}

export interface TargetNamespaces {
  /** `literal: ["*"]` admits every namespace. */
  explicit?: { allow?: { literal?: string[] } }
  /** Matched against the labels of the consumer namespace. */
  selector?: LabelSelector
}

export interface SyncConfig {
  /** Absent means `off`. */
  mode?: SyncMode
  /** Field paths that are neither reverted nor guarded. */
  ignoreFields?: string[]
}

/** One rendered object, named by a JSONPath template over the render context. */
export interface OutputSource {
  apiVersion: string
  kind: string
  /** JSONPath template, e.g. "{.instance.name}-svc". */
  name: string
  /** JSONPath template; defaults to the TemplateInstance namespace. */
  namespace?: string
}

/** Every rendered object of one kind, optionally narrowed. */
export interface OutputSourceAll {
  apiVersion: string
  kind: string
  /** JSONPath template; absent means every namespace the instance rendered into. */
  namespace?: string
  /** Matched against the rendered objects' labels. */
  selector?: LabelSelector
}

export interface OutputField {
  /** Key under status.outputs; unique across every output of the Template. */
  name: string
  /** kubectl-style JSONPath with braces, e.g. "{.spec.clusterIP}". */
  jsonPath: string
}

/**
 * A named extraction from rendered objects into TemplateInstance.status.outputs.
 * Exactly one of `from` / `fromAll`; `forEach` only with `from`.
 * See docs/api-outputs.md.
 */
export interface TemplateOutput {
  name: string
  from?: OutputSource
  fromAll?: OutputSourceAll
  /** Iterate over an array inside the `from` object (JSONPath with braces). */
  forEach?: { jsonPath: string }
  /** JSONPath template producing the key for each match; defaults are in docs/api-outputs.md. */
  keyTemplate?: string
  fields: OutputField[]
}

/**
 * Objects a Template lets its instances reach outside their own namespace
 * (docs/tenancy-grants.md). Not part of the Template Operator v2 API: without
 * a grant, an instance reads parameter sources and renders objects in its own
 * namespace only.
 */
export interface ResourceGrant {
  /** API group; "" (the default) is the core group, "*" every group. */
  apiGroup?: string
  /** Kind, e.g. Secret or ClusterRole; "*" for every kind. */
  kind: string
  /**
   * Namespaced kinds: the namespace, or "*" for every namespace (a LIST
   * across all namespaces needs "*"). Absent: cluster-scoped objects of the kind.
   */
  namespace?: string
  /** Object names; absent for every name. A LIST reads every name, so only a grant without names allows it. */
  names?: string[]
}

export interface TemplateGrants {
  /** What spec.parameters[].valueFrom of an instance may read beyond the instance's namespace. */
  parameterSources?: ResourceGrant[]
  /** What a render may apply beyond the instance's namespace (other namespaces, cluster-scoped kinds). */
  objects?: ResourceGrant[]
}

export interface TemplateSpec {
  /** Exactly one of gotemplate / helm. */
  gotemplate?: string
  helm?: HelmSpec
  parameters?: TemplateParameterDefinition[]
  /** Absent: only the Template's own namespace may instantiate it. */
  targetNamespaces?: TargetNamespaces
  sync?: SyncConfig
  outputs?: TemplateOutput[]
  /** Absent: instances stay in their own namespace. */
  grants?: TemplateGrants
}

export const TEMPLATE_PHASES = Object.freeze(['Valid', 'Invalid', 'Error'] as const)
export type TemplatePhase = (typeof TEMPLATE_PHASES)[number]

export interface TemplateStatus {
  observedGeneration?: number
  phase?: TemplatePhase
  conditions?: Condition[]
}

export interface Template extends KubeObject {
  apiVersion?: string
  kind?: string
  metadata?: ObjectMeta
  spec: TemplateSpec
  status?: TemplateStatus
}

/**
 * The Template's sync mode, as the webhook, the reconciler and the CLI read
 * it. The schema restricts it to the enum and defaults it to off; anything
 * else (an object from an older or hand-made source) reads as off.
 */
export function syncModeOf(template: Pick<Template, 'spec'>): SyncMode {
  const mode: unknown = template.spec?.sync?.mode
  return (SYNC_MODES as readonly unknown[]).includes(mode) ? (mode as SyncMode) : 'off'
}
