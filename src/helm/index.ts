// Helm charts for spec.helm: the in-memory chart model and its loader
// (src/helm/chart), the repositories charts come from (src/helm/source), and
// the engine that renders a chart as `helm template` does (src/helm/render,
// docs/helm-render.md).
//
//   const fetcher = createChartFetcher({ plainHttpRegistries: [] })
//   const { chart, digest } = await fetcher.fetchChart({ repository: spec.helm.chart.repository, helm: 'v4', auth })
//   // or, offline: const chart = await loadChartPath('./mychart-1.0.0.tgz', { helm: 'v3' })
//
// Failures are ChartLoadError (code: ChartLoadCode) from the loader and
// ChartSourceError (code: ChartSourceCode, condition: 'SourceAccessible' |
// 'Valid') from the fetcher.

export { ChartLoadCode, ChartLoadError } from './chart/errors.ts'
export { type ChartLimits, DEFAULT_CHART_LIMITS } from './chart/limits.ts'
export { type LoadOptions, loadChartArchive, loadChartDirectory, loadChartFiles, loadChartPath } from './chart/load.ts'
export { compareSemver, parseSemver, type SemVer } from './chart/semver.ts'
export type {
  Chart,
  ChartDependency,
  ChartFile,
  ChartLock,
  ChartMaintainer,
  ChartMetadata,
  HelmVersion,
  JsonMap,
  Subchart,
} from './chart/types.ts'
export { decodeValues } from './chart/yaml.ts'
export type { AuthSecret } from './source/auth.ts'
export { type ChartRef, ChartSourceCode, ChartSourceError, conditionOf, type SourceConditionType } from './source/errors.ts'
export { type ChartFetcher, type ChartFetcherOptions, type ChartRequest, createChartFetcher, type FetchedChart } from './source/fetcher.ts'
export type { FetchFn } from './source/http.ts'
export type { Clock } from './source/tokens.ts'
export {
  DEFAULT_API_VERSIONS,
  DEFAULT_KUBE_VERSION,
  DEFAULT_RENDER_LIMITS,
  defaultCapabilities,
  type HelmCapabilities,
  type HelmMajor,
  HelmRenderCode,
  type HelmRenderedObject,
  HelmRenderError,
  type HelmRenderInput,
  type HelmRenderLimits,
  type HelmRenderResult,
  renderChart,
} from './render/index.ts'
