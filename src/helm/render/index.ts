// The Helm rendering engine: `helm template --include-crds` in TypeScript
// over src/gotemplate (docs/helm-render.md).
//
//   const { objects, skipped } = renderChart({
//     chart, helm: 'v4', releaseName: 'web', namespace: 'team-a',
//     values: { replicaCount: 2 }, capabilities: defaultCapabilities(),
//   })

export { DEFAULT_API_VERSIONS, DEFAULT_KUBE_VERSION, defaultCapabilities } from './capabilities.ts'
export { HelmRenderCode, HelmRenderError } from './errors.ts'
export { DEFAULT_RENDER_LIMITS } from './limits.ts'
export { renderChart } from './render.ts'
export type {
  HelmCapabilities,
  HelmMajor,
  HelmRenderedObject,
  HelmRenderInput,
  HelmRenderLimits,
  HelmRenderResult,
} from './types.ts'
