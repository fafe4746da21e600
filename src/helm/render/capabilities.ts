// .Capabilities: the cluster's version and API versions as Helm's
// chartutil.Capabilities struct holds them, and Helm's defaults for an
// offline render (what `helm template` reports without a cluster).

import type { GoFuncSpec, GoValue } from '../../gotemplate/index.ts'
import { withMethods } from '../../gotemplate/sprig/types.ts'
import { GoStruct } from './gostruct.ts'
import type { HelmCapabilities, HelmMajor } from './types.ts'

/**
 * The client-go scheme's group/versions plus apiextensions, in Helm's order:
 * DefaultVersionSet of Helm 3.22 and 4.3 (client-go v0.37).
 */
export const DEFAULT_API_VERSIONS: readonly string[] = Object.freeze([
  'v1',
  'admissionregistration.k8s.io/v1',
  'admissionregistration.k8s.io/v1alpha1',
  'admissionregistration.k8s.io/v1beta1',
  'internal.apiserver.k8s.io/v1alpha1',
  'apps/v1',
  'apps/v1beta1',
  'apps/v1beta2',
  'authentication.k8s.io/v1',
  'authentication.k8s.io/v1alpha1',
  'authentication.k8s.io/v1beta1',
  'authorization.k8s.io/v1',
  'authorization.k8s.io/v1beta1',
  'autoscaling/v1',
  'autoscaling/v2',
  'batch/v1',
  'batch/v1beta1',
  'certificates.k8s.io/v1',
  'certificates.k8s.io/v1beta1',
  'certificates.k8s.io/v1alpha1',
  'coordination.k8s.io/v1alpha2',
  'coordination.k8s.io/v1beta1',
  'coordination.k8s.io/v1',
  'discovery.k8s.io/v1',
  'discovery.k8s.io/v1beta1',
  'events.k8s.io/v1',
  'events.k8s.io/v1beta1',
  'extensions/v1beta1',
  'flowcontrol.apiserver.k8s.io/v1',
  'flowcontrol.apiserver.k8s.io/v1beta1',
  'flowcontrol.apiserver.k8s.io/v1beta2',
  'flowcontrol.apiserver.k8s.io/v1beta3',
  'lifecycle.k8s.io/v1alpha1',
  'networking.k8s.io/v1',
  'networking.k8s.io/v1beta1',
  'node.k8s.io/v1',
  'node.k8s.io/v1alpha1',
  'node.k8s.io/v1beta1',
  'policy/v1',
  'policy/v1beta1',
  'rbac.authorization.k8s.io/v1',
  'rbac.authorization.k8s.io/v1beta1',
  'rbac.authorization.k8s.io/v1alpha1',
  'resource.k8s.io/v1',
  'resource.k8s.io/v1beta2',
  'resource.k8s.io/v1beta1',
  'resource.k8s.io/v1alpha3',
  'scheduling.k8s.io/v1alpha3',
  'scheduling.k8s.io/v1beta1',
  'scheduling.k8s.io/v1',
  'storage.k8s.io/v1beta1',
  'storage.k8s.io/v1',
  'storage.k8s.io/v1alpha1',
  'storagemigration.k8s.io/v1',
  'storagemigration.k8s.io/v1beta1',
  'apiextensions.k8s.io/v1beta1',
  'apiextensions.k8s.io/v1',
])

/** The Kubernetes version Helm 3.22 and 4.3 release builds assume without a cluster (client-go v0.37: v1.37.0). */
export const DEFAULT_KUBE_VERSION = 'v1.37.0'

/** Helm's defaults for an offline render: what `helm template` uses without --kube-version and --api-versions. */
export function defaultCapabilities(): HelmCapabilities {
  return { kubeVersion: DEFAULT_KUBE_VERSION, apiVersions: DEFAULT_API_VERSIONS }
}

/** The version string of the Helm release whose behaviour the engine follows. */
export const HELM_VERSIONS: Readonly<Record<HelmMajor, string>> = { v3: 'v3.22.0', v4: 'v4.3.1' }
const GO_VERSION = 'go1.26.8'

export interface ParsedKubeVersion {
  /** What .Capabilities.KubeVersion.Version holds. */
  readonly version: string
  /** v{major}.{minor}.{patch}: String() and the Chart.yaml kubeVersion check. */
  readonly normalized: string
  readonly major: string
  readonly minor: string
}

/** k8s.io/apimachinery's ParseGeneric as Helm's ParseKubeVersion uses it; undefined when it does not parse. */
export function parseKubeVersion(helm: HelmMajor, text: string): ParsedKubeVersion | undefined {
  const m = /^\s*v?([0-9]+)\.([0-9]+)(?:\.([0-9]+))?(.*)$/.exec(text)
  if (m === null) return undefined
  const [, major = '', minor = '', patch = '0', rest = ''] = m
  // ParseGeneric: anything after the numbers must start like a pre-release or build suffix.
  if (rest !== '' && !/^[-+]/.test(rest)) return undefined
  const norm = (s: string) => String(BigInt(s))
  const normalized = `v${norm(major)}.${norm(minor)}.${norm(patch)}`
  const version = helm === 'v3' ? normalized : text.startsWith('v') ? text : `v${text}`
  return { version, normalized, major: norm(major), minor: norm(minor) }
}

export function capabilitiesObject(helm: HelmMajor, caps: HelmCapabilities, kube: ParsedKubeVersion): GoValue {
  const kubeFields =
    helm === 'v3'
      ? [
          { name: 'Version', value: kube.version, json: 'Version' },
          { name: 'Major', value: kube.major, json: 'Major' },
          { name: 'Minor', value: kube.minor, json: 'Minor' },
        ]
      : [
          { name: 'Version', value: kube.version, json: 'Version' },
          { name: 'normalizedVersion', value: kube.normalized },
          { name: 'Major', value: kube.major, json: 'Major' },
          { name: 'Minor', value: kube.minor, json: 'Minor' },
        ]
  const kubeVersion = new GoStruct(
    helm === 'v3' ? 'chartutil.KubeVersion' : 'common.KubeVersion',
    'struct',
    kubeFields,
    {
      String: { fn: () => (helm === 'v3' ? kube.version : kube.normalized), params: [] },
      GitVersion: { fn: () => kube.version, params: [] },
    },
    true,
  )
  const list = [...caps.apiVersions]
  const has: GoFuncSpec = { fn: (v) => list.includes(v as string), params: ['string'] }
  const apiVersions = withMethods(list, helm === 'v3' ? 'chartutil.VersionSet' : 'common.VersionSet', (name) =>
    name === 'Has' ? has : undefined,
  )
  const helmFields = [
    { name: 'Version', value: HELM_VERSIONS[helm], json: 'version', omitempty: true },
    { name: 'GitCommit', value: '', json: 'git_commit', omitempty: true },
    { name: 'GitTreeState', value: '', json: 'git_tree_state', omitempty: true },
    { name: 'GoVersion', value: GO_VERSION, json: 'go_version', omitempty: true },
    ...(helm === 'v4' ? [{ name: 'KubeClientVersion', value: 'v1.37', json: 'kube_client_version', omitempty: true }] : []),
  ]
  const helmVersion = new GoStruct('version.BuildInfo', 'struct', helmFields)
  return new GoStruct(helm === 'v3' ? '*chartutil.Capabilities' : '*common.Capabilities', 'ptr', [
    { name: 'KubeVersion', value: kubeVersion, json: 'KubeVersion' },
    { name: 'APIVersions', value: apiVersions, json: 'APIVersions' },
    { name: 'HelmVersion', value: helmVersion, json: 'HelmVersion' },
  ])
}
