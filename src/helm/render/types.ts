// The engine's API (the contract with the reconciler, the CLI and
// `template-sync local`): see docs/helm-render.md.

import type { Chart } from '../chart/types.ts'

export type HelmMajor = 'v3' | 'v4'

export interface HelmCapabilities {
  /** e.g. 'v1.37.2': the cluster's /version, or offline the Helm major's default. */
  readonly kubeVersion: string
  /** 'v1', 'apps/v1', 'apps/v1/Deployment', ... as helm template's --api-versions or discovery lists them. */
  readonly apiVersions: readonly string[]
}

export interface HelmRenderLimits {
  /** Wall-clock time of one render, in milliseconds. */
  readonly timeMs: number
  /** Bytes of all rendered templates together (and of any one string a function returns). */
  readonly outputBytes: number
  /** Nesting of include / tpl / template calls. */
  readonly depth: number
  /** Iterations of all range loops of one render together. */
  readonly rangeIterations: number
  /** include, tpl and template calls of one render together. */
  readonly calls: number
  /** Decoded objects of one render. */
  readonly objects: number
}

export interface HelmRenderInput {
  readonly chart: Chart
  readonly helm: HelmMajor
  readonly releaseName: string
  readonly namespace: string
  /** User values (e.g. the rendered valuesTemplate), coalesced over the chart's as helm does with -f. */
  readonly values: Record<string, unknown>
  readonly capabilities: HelmCapabilities
  readonly limits?: Partial<HelmRenderLimits>
}

export interface HelmRenderedObject {
  /** e.g. 'mychart/templates/deployment.yaml' (CRDs: 'mychart/crds/x.yaml'). */
  readonly template: string
  /** One decoded YAML document; apiVersion, kind and metadata are present. */
  readonly object: Record<string, unknown>
}

export interface HelmRenderResult {
  /** CRDs from crds/ first, then manifests in Helm's install order. */
  readonly objects: HelmRenderedObject[]
  /** What was rendered but is not applied: hooks, tests (docs/helm-hooks.md), NOTES.txt. */
  readonly skipped: { template: string; reason: string }[]
}
