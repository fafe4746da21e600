// `template-sync render --chart PATH` without a Template: the chart alone,
// rendered by the reconciler's engine with the flags of `helm template` that
// shape a render, in their meaning there:
//
//   -f/--values FILE, --set, --set-string, --set-file   user values (Helm's merge order)
//   --kube-version, --api-versions/-a                    .Capabilities
//   --release-name NAME (helm template's NAME), -n NS    .Release
//   --helm-version v3|v4                                 the Helm major whose rules apply
//
// The objects are what a Helm Template with this chart would apply: CRDs of
// crds/ first (as `--include-crds`), then the manifests in Helm's install
// order; hooks, tests and NOTES.txt are left out with a note. No ownership
// stamp and no namespace defaulting: those belong to a TemplateInstance.

import { readFileSync } from 'node:fs'
import { ChartLoadError } from '../helm/chart/errors.ts'
import { loadChartPath } from '../helm/chart/load.ts'
import { HelmRenderError, type HelmMajor, renderChart } from '../helm/render/index.ts'
import { type UserValueFlags, UserValuesError, userValues } from '../helm/render/user-values.ts'
import type { KubeClient } from '../kube/client.ts'
import { CommandError } from './args.ts'
import { type CapabilityFlags, commandLineCapabilities, skippedNotes } from './render-helm.ts'

export interface ChartRenderOptions {
  readonly path: string
  readonly releaseName: string
  readonly namespace: string
  readonly helm: HelmMajor
  readonly values: UserValueFlags
  readonly capabilities: CapabilityFlags
}

export type ChartRenderResult =
  | { readonly ok: true; readonly objects: Record<string, unknown>[]; readonly notes: string[] }
  | { readonly ok: false; readonly reason: string; readonly message: string; readonly notes: string[] }

/** A file's text for -f and --set-file, failing in the words Go's os.ReadFile uses. */
function readUserFile(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (err) {
    const why = (err as Error).message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '')
    throw new Error(`open ${path}: ${why}`, { cause: err })
  }
}

/**
 * Renders the chart at opts.path. A chart that does not load, or values that
 * do not parse, are CommandErrors (exit 1); a render failure is a result with
 * the engine's code as the reason.
 */
export async function renderLocalChart(opts: ChartRenderOptions, client: KubeClient | undefined): Promise<ChartRenderResult> {
  const notes: string[] = []
  let chart: Awaited<ReturnType<typeof loadChartPath>>
  try {
    chart = await loadChartPath(opts.path, { helm: opts.helm })
  } catch (err) {
    if (err instanceof ChartLoadError) throw new CommandError(`${opts.path}: ${err.message}`, 1, { cause: err })
    throw err
  }
  let values: Record<string, unknown>
  try {
    values = userValues(opts.helm, opts.values, readUserFile)
  } catch (err) {
    if (err instanceof UserValuesError) throw new CommandError(err.message, 1, { cause: err })
    throw err
  }
  const capabilities = await commandLineCapabilities(client, opts.capabilities, notes)()
  try {
    const r = renderChart({ chart, helm: opts.helm, releaseName: opts.releaseName, namespace: opts.namespace, values, capabilities })
    notes.push(...skippedNotes(r.skipped))
    return { ok: true, objects: r.objects.map((o) => o.object), notes }
  } catch (err) {
    if (err instanceof HelmRenderError) return { ok: false, reason: err.code, message: err.message, notes }
    throw err
  }
}
