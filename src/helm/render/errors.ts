// Why a chart could not be rendered. The code is stable for callers (it maps
// to a condition reason); the message is Helm's where Helm has one, and
// names the template file and line when a template is at fault.

export const HelmRenderCode = {
  /** The release name is not one Helm accepts. */
  ReleaseName: 'ReleaseName',
  /** The chart type is not installable (library or unknown). */
  NotInstallable: 'NotInstallable',
  /** A Chart.yaml dependency has no chart in charts/. */
  MissingDependency: 'MissingDependency',
  /** Values do not fit together (a subchart's key is not a table). */
  ValuesInvalid: 'ValuesInvalid',
  /** values.schema.json rejects the values, or cannot be compiled. */
  SchemaViolation: 'SchemaViolation',
  /** Chart.yaml's kubeVersion excludes the cluster's version. */
  KubeVersion: 'KubeVersion',
  /** A template does not parse. */
  TemplateParse: 'TemplateParse',
  /** A template failed while executing (fail, required, a bad value, a missing template). */
  TemplateExec: 'TemplateExec',
  /** A rendered document is not YAML, or not a Kubernetes object. */
  ManifestInvalid: 'ManifestInvalid',
  /** A render limit (time, output, depth, loop iterations, objects) was reached. */
  Limit: 'Limit',
} as const
export type HelmRenderCode = (typeof HelmRenderCode)[keyof typeof HelmRenderCode]

export class HelmRenderError extends Error {
  override readonly name = 'HelmRenderError'
  readonly code: HelmRenderCode
  /** The template at fault, e.g. 'mychart/templates/deployment.yaml'. */
  readonly template?: string
  /** 1-based line in that template. */
  readonly line?: number
  constructor(code: HelmRenderCode, message: string, opts: { template?: string; line?: number; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause })
    this.code = code
    if (opts.template !== undefined) this.template = opts.template
    if (opts.line !== undefined) this.line = opts.line
  }
}
